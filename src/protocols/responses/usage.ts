/**
 * Usage in the responses protocol (OpenAI `ResponseUsage`): `input_tokens` already
 * includes cached tokens, so it maps straight onto tollgate's `input_tokens`.
 */
import { asRecord, parseEventData } from "../json_read.ts";
import { type OpenAiUsageFields, readOpenAiUsage } from "../openai_usage.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { Usage } from "../../usage.ts";
import type { UsageTap } from "../../translate/codec.ts";

// The terminal events of a response stream; each carries the final `response` object.
const FINAL_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed"]);

/** Where a responses `usage` object keeps its counts. */
const USAGE_FIELDS: OpenAiUsageFields = {
  input: "input_tokens",
  output: "output_tokens",
  inputDetails: "input_tokens_details",
  outputDetails: "output_tokens_details",
};

/** The usage of a `response` object, if it reports one. */
export function usageFromResponse(json: unknown): Usage | undefined {
  return readOpenAiUsage(asRecord(json)?.usage, USAGE_FIELDS);
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
    output_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}
