/**
 * Usage in the responses protocol (OpenAI `ResponseUsage`): `input_tokens` already
 * includes cached tokens, so it maps straight onto tollgate's `input_tokens`.
 */
import { asRecord, parseEventData, tokenCount } from "../json_read.ts";
import type { SseEvent } from "../sse.ts";
import type { Usage, UsageTap } from "../usage.ts";

// The terminal events of a response stream; each carries the final `response` object.
const FINAL_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** The usage of a `response` object, if it reports one. */
export function usageFromResponse(json: unknown): Usage | undefined {
  return readUsage(asRecord(json)?.usage);
}

/** A tap reading `response.usage` from the stream's terminal event. */
export function createUsageTap(): UsageTap {
  let seen: Usage | undefined;
  return {
    observe(event: SseEvent) {
      if (event.event !== undefined && !FINAL_EVENTS.has(event.event)) return;
      if (!event.data.includes('"usage"')) return;
      const data = parseEventData(event.data);
      if (typeof data?.type !== "string" || !FINAL_EVENTS.has(data.type)) return;
      seen = usageFromResponse(data.response) ?? seen;
    },
    usage: () => seen,
  };
}

/** Renders usage as a responses `usage` object. */
export function encodeUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: {
      cached_tokens: usage.cached_tokens,
      cache_write_tokens: usage.cache_write_tokens,
    },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

function readUsage(value: unknown): Usage | undefined {
  const usage = asRecord(value);
  if (!usage || (usage.input_tokens === undefined && usage.output_tokens === undefined)) {
    return undefined;
  }
  const details = asRecord(usage.input_tokens_details);
  return {
    input_tokens: tokenCount(usage.input_tokens),
    output_tokens: tokenCount(usage.output_tokens),
    cached_tokens: tokenCount(details?.cached_tokens),
    cache_write_tokens: tokenCount(details?.cache_write_tokens),
  };
}
