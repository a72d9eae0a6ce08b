/**
 * Usage in the chat-completions protocol (OpenAI `CompletionUsage`): `prompt_tokens`
 * already includes cached tokens, so it maps straight onto `input_tokens`.
 */
import { asRecord, parseEventData, tokenCount } from "../json_read.ts";
import type { SseEvent } from "../sse.ts";
import type { Usage, UsageTap } from "../usage.ts";

/** The usage of a `chat.completion` object, if it reports one. */
export function usageFromResponse(json: unknown): Usage | undefined {
  return readUsage(asRecord(json)?.usage);
}

/** A tap reading the `usage` of stream chunks (the last chunk with `include_usage`). */
export function createUsageTap(): UsageTap {
  let seen: Usage | undefined;
  return {
    observe(event: SseEvent) {
      // Most chunks carry no usage; skip parsing them.
      if (!event.data.includes('"usage"')) return;
      seen = readUsage(parseEventData(event.data)?.usage) ?? seen;
    },
    usage: () => seen,
  };
}

/** Renders usage as a chat-completions `usage` object. */
export function encodeUsage(usage: Usage): Record<string, unknown> {
  const details: Record<string, number> = { cached_tokens: usage.cached_tokens };
  if (usage.cache_write_tokens > 0) details.cache_write_tokens = usage.cache_write_tokens;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.input_tokens + usage.output_tokens,
    prompt_tokens_details: details,
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function readUsage(value: unknown): Usage | undefined {
  const usage = asRecord(value);
  if (!usage || (usage.prompt_tokens === undefined && usage.completion_tokens === undefined)) {
    return undefined;
  }
  const details = asRecord(usage.prompt_tokens_details);
  return {
    input_tokens: tokenCount(usage.prompt_tokens),
    output_tokens: tokenCount(usage.completion_tokens),
    cached_tokens: tokenCount(details?.cached_tokens),
    cache_write_tokens: tokenCount(details?.cache_write_tokens),
  };
}
