/**
 * Token estimates: a cheap bound for holds (before the upstream answers) and a
 * tokenizer count for settling when an upstream reported no usage at all.
 */
import type { Protocol } from "../protocols/index.ts";
import { countPromptTokens, type CountTokens } from "../tokens/token_count.ts";
import type { Usage } from "../usage.ts";

/** Bytes per token assumed for holds: low enough that the hold errs on the high side. */
const BYTES_PER_TOKEN_FOR_HOLD = 3;

/**
 * A quick, generous estimate of a request's prompt tokens from its body size:
 * tokenizing every request body would cost more CPU than the rest of the relay.
 */
export function holdInputTokens(bodyBytes: number): number {
  return Math.ceil(bodyBytes / BYTES_PER_TOKEN_FOR_HOLD);
}

/** Bytes per token of typical prompts (English text and JSON): a fair, not a generous, guess. */
const BYTES_PER_TOKEN_LIKELY = 4;

/** A fair estimate of a request's prompt tokens from its body size, for interrupted requests. */
export function likelyInputTokens(bodyBytes: number): number {
  return Math.ceil(bodyBytes / BYTES_PER_TOKEN_LIKELY);
}

/**
 * Usage estimated with a tokenizer (each count bounded: tokens/token_count.ts), for a request
 * whose upstream reported none. `inputTokens`, when the request's input was counted
 * already (the context-window check), is taken rather than counted again.
 */
export function estimateUsage(
  protocol: Protocol,
  body: Record<string, unknown>,
  outputText: string,
  count: CountTokens,
  inputTokens?: number,
): Usage {
  return {
    input_tokens: inputTokens ?? countInputTokens(protocol, body, count),
    output_tokens: count(outputText),
    cached_tokens: 0,
    cache_write_tokens: 0,
  };
}

/** A request's input tokens: its prompt's texts and its tools' definitions. */
export function countInputTokens(
  protocol: Protocol,
  body: Record<string, unknown>,
  count: CountTokens,
): number {
  return countPromptTokens(protocol.promptText(body), count) +
    (body.tools === undefined ? 0 : count(JSON.stringify(body.tools)));
}
