/**
 * Usage in the messages protocol (Anthropic `Usage`). Anthropic's `input_tokens` leaves
 * out cache reads and writes, so they are added to reach tollgate's `input_tokens`.
 */
import { asRecord, parseEventData, tokenCount } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { Usage } from "../../usage.ts";
import type { UsageTap } from "../../translate/codec.ts";

const FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
] as const;
type AnthropicUsage = Partial<Record<typeof FIELDS[number], number>>;

/** The usage of a `message` object, if it reports one. */
export function usageFromResponse(json: unknown): Usage | undefined {
  const reported: AnthropicUsage = {};
  return merge(reported, asRecord(json)?.usage) ? toUsage(reported) : undefined;
}

/**
 * A tap reading `message_start`'s `message.usage`, then each `message_delta`'s `usage`:
 * its `output_tokens` is cumulative, and any field it reports overrides the earlier one.
 */
export function createUsageTap(): UsageTap {
  const reported: AnthropicUsage = {};
  let seen = false;
  return {
    observe(event: SseEvent) {
      if (
        event.event !== undefined && event.event !== "message_start" &&
        event.event !== "message_delta"
      ) return;
      if (!event.data.includes('"usage"')) return;
      const data = parseEventData(event.data);
      if (data?.type === "message_start") {
        seen = merge(reported, asRecord(data.message)?.usage) || seen;
      } else if (data?.type === "message_delta") {
        seen = merge(reported, data.usage) || seen;
      }
    },
    usage: () => seen ? toUsage(reported) : undefined,
  };
}

/** Renders usage as a messages `usage` object (cache tokens apart from `input_tokens`). */
export function encodeUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: Math.max(0, usage.input_tokens - usage.cached_tokens - usage.cache_write_tokens),
    cache_creation_input_tokens: usage.cache_write_tokens,
    cache_read_input_tokens: usage.cached_tokens,
    output_tokens: usage.output_tokens,
    service_tier: "standard",
  };
}

/** Copies the numeric usage fields of `value` onto `into`; true when there were any. */
function merge(into: AnthropicUsage, value: unknown): boolean {
  const usage = asRecord(value);
  if (!usage) return false;
  let any = false;
  for (const field of FIELDS) {
    // A null field (message_delta's input_tokens, say) means "not reported here".
    if (typeof usage[field] !== "number") continue;
    into[field] = tokenCount(usage[field]);
    any = true;
  }
  return any;
}

function toUsage(reported: AnthropicUsage): Usage {
  const cached = reported.cache_read_input_tokens ?? 0;
  const written = reported.cache_creation_input_tokens ?? 0;
  return {
    input_tokens: (reported.input_tokens ?? 0) + cached + written,
    output_tokens: reported.output_tokens ?? 0,
    cached_tokens: cached,
    cache_write_tokens: written,
  };
}
