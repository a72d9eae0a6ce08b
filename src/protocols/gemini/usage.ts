/**
 * Usage in the Gemini protocol (`UsageMetadata`, Gemini API reference "Generating
 * content"; `@google/genai` `GenerateContentResponseUsageMetadata`):
 *
 * | usageMetadata             | tollgate                                        |
 * |---------------------------|-------------------------------------------------|
 * | `promptTokenCount`        | input_tokens (it includes the cached content)   |
 * | `toolUsePromptTokenCount` | input_tokens too (tool results read as prompt)  |
 * | `cachedContentTokenCount` | cached_tokens                                   |
 * | `candidatesTokenCount`    | output_tokens                                   |
 * | `thoughtsTokenCount`      | output_tokens too, and reasoning_tokens         |
 * | `totalTokenCount`         | written as input + output; read only when the output counts are absent |
 */
import { asRecord, tokenCount } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { Usage } from "../../usage.ts";
import type { UsageTap } from "../../translate/codec.ts";

/** Usage of a `usageMetadata` object, or undefined when it reports no count. */
export function readUsageMetadata(value: unknown): Usage | undefined {
  const metadata = asRecord(value);
  if (
    !metadata ||
    (metadata.promptTokenCount === undefined && metadata.candidatesTokenCount === undefined &&
      metadata.totalTokenCount === undefined)
  ) return undefined;
  const input = tokenCount(metadata.promptTokenCount) +
    tokenCount(metadata.toolUsePromptTokenCount);
  const thoughts = tokenCount(metadata.thoughtsTokenCount);
  let output = tokenCount(metadata.candidatesTokenCount) + thoughts;
  // A chunk early in a stream may say only the prompt and the total so far.
  if (output === 0) output = Math.max(0, tokenCount(metadata.totalTokenCount) - input);
  const usage: Usage = {
    input_tokens: input,
    output_tokens: output,
    cached_tokens: tokenCount(metadata.cachedContentTokenCount),
    cache_write_tokens: 0,
  };
  if (thoughts > 0) usage.reasoning_tokens = thoughts;
  return usage;
}

/** The usage of a `GenerateContentResponse`, if it reports one. */
export function usageFromResponse(json: unknown): Usage | undefined {
  return readUsageMetadata(asRecord(json)?.usageMetadata);
}

/**
 * A tap reading the `usageMetadata` of stream chunks: each chunk carries the counts so far,
 * so the last one wins. Every chunk has one, so only its text is parsed, not the chunk.
 */
export function createUsageTap(): UsageTap {
  let seen: Usage | undefined;
  return {
    observe(event: SseEvent) {
      const text = usageMetadataText(event.data);
      if (text === undefined) return;
      try {
        seen = readUsageMetadata(JSON.parse(text)) ?? seen;
      } catch {
        // Not JSON after all: the chunk says nothing of usage.
      }
    },
    usage: () => seen,
  };
}

// `"usageMetadata": {`, outside any string (a quote inside a JSON string is escaped).
const USAGE_METADATA = /"usageMetadata"\s*:\s*\{/;

/**
 * The JSON text of a chunk's `usageMetadata` object (from its `{` to the matching `}`),
 * or undefined when the chunk has none or it does not close.
 */
export function usageMetadataText(data: string): string | undefined {
  if (!data.includes('"usageMetadata"')) return undefined;
  const match = USAGE_METADATA.exec(data);
  if (!match) return undefined;
  const start = match.index + match[0].length - 1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < data.length; i++) {
    const char = data.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++; // a backslash: the next character is escaped
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b) depth++;
    else if (char === 0x7d && --depth === 0) return data.slice(start, i + 1);
  }
  return undefined;
}

/** Renders usage as a `usageMetadata` object (thoughts apart from the candidates' count). */
export function encodeUsage(usage: Usage): Record<string, unknown> {
  const thoughts = Math.min(usage.reasoning_tokens ?? 0, usage.output_tokens);
  const metadata: Record<string, unknown> = {
    promptTokenCount: usage.input_tokens,
    candidatesTokenCount: usage.output_tokens - thoughts,
    totalTokenCount: usage.input_tokens + usage.output_tokens,
  };
  if (usage.cached_tokens > 0) metadata.cachedContentTokenCount = usage.cached_tokens;
  if (thoughts > 0) metadata.thoughtsTokenCount = thoughts;
  return metadata;
}
