/**
 * Usage in the chat-completions protocol (OpenAI `CompletionUsage`): `prompt_tokens`
 * already includes cached tokens, so it maps straight onto `input_tokens`.
 */
import { asRecord, parseEventData } from "../json_read.ts";
import { type OpenAiUsageFields, readOpenAiUsage } from "../openai_usage.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { Usage } from "../../usage.ts";
import type { UsageTap } from "../../translate/codec.ts";

/** Where a chat-completions `usage` object keeps its counts. */
const USAGE_FIELDS: OpenAiUsageFields = {
  input: "prompt_tokens",
  output: "completion_tokens",
  inputDetails: "prompt_tokens_details",
  outputDetails: "completion_tokens_details",
};

/** The usage of a `chat.completion` object, if it reports one. */
export function usageFromResponse(json: unknown): Usage | undefined {
  return readOpenAiUsage(asRecord(json)?.usage, USAGE_FIELDS);
}

// `"usage": {`, outside any string (a quote inside a JSON string is escaped).
const USAGE_OBJECT = /"usage"\s*:\s*\{/;

/**
 * Whether a chunk's JSON text holds a usage object. Once `include_usage` is set every
 * chunk says `"usage":null`; only the last one counts, and only it is worth parsing.
 */
export function reportsUsage(data: string): boolean {
  return data.includes('"usage"') && USAGE_OBJECT.test(data);
}

/** A tap reading the `usage` of stream chunks (the last chunk with `include_usage`). */
export function createUsageTap(): UsageTap {
  let seen: Usage | undefined;
  return {
    observe(event: SseEvent) {
      if (!reportsUsage(event.data)) return;
      seen = readOpenAiUsage(parseEventData(event.data)?.usage, USAGE_FIELDS) ?? seen;
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
    completion_tokens_details: { reasoning_tokens: usage.reasoning_tokens ?? 0 },
  };
}
