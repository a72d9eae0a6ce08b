/**
 * The context-window check of design.md: input plus requested output over the model's
 * `context_window` is the client's 400, found before any hold or upstream call (the
 * upstream would refuse it anyway, after the gateway had paid for the round trip). The
 * count is bounded (tokens/token_count.ts): a long prompt is estimated, a little under its exact
 * count, so that no prompt that fits is refused and none holds the serving thread.
 */
import { countInputTokens } from "../billing/estimate.ts";
import type { ModelConfig } from "../config/schema.ts";
import { protocolOf } from "../protocols/index.ts";
import { GatewayError } from "../errors.ts";
import { loadTokenCounter } from "../tokens/token_count.ts";
import type { EntryRequest } from "../protocols/types.ts";

/** What the check reads of a request. */
export interface ContextCheck {
  request: EntryRequest;
  /** The model's config entry, if the config has one. */
  model: ModelConfig | undefined;
  /** The size of the client's body in bytes. */
  bodyBytes: number;
  /** The model's name in a refusal, when it is not the one asked (a fallback). */
  name?: string;
  /** The request's input tokens, when counted already (not counted again). */
  inputTokens?: number;
}

/**
 * Refuses with 400 `context_length_exceeded` (a rejection) when the request cannot fit
 * the model's context window. Returns the input tokens when it had to count them (a
 * better estimate than the body size, for later steps); undefined when the model has no
 * window or the body is too small to matter (no tokenizer loaded).
 */
export async function checkContextWindow(check: ContextCheck): Promise<number | undefined> {
  const { request, model } = check;
  const window = model?.context_window;
  if (window === undefined) return undefined;
  // A request without a cap may produce the model's whole max output: that must fit too.
  const output = request.maxOutputTokens ?? model?.max_output_tokens ?? 0;
  // A token is at least one byte of the text, and the text is part of the body: a body
  // this small fits whatever it says, with no tokenizer run.
  if (check.bodyBytes + output <= window) return undefined;
  const input = check.inputTokens ??
    countInputTokens(protocolOf(request.protocol), request.body, await loadTokenCounter());
  if (input + output > window) throw tooLong(request, check.name, input, output, window);
  return input;
}

/** The client's 400 for `input` and `output` tokens over the model's `window`. */
function tooLong(
  request: EntryRequest,
  name = request.model,
  input: number,
  output: number,
  window: number,
): GatewayError {
  const asked = request.maxOutputTokens === undefined
    ? `the model's max_output_tokens of ${output} (the request sets no ${
      protocolOf(request.protocol).fields.maxOutput
    })`
    : `${output} requested output tokens`;
  return new GatewayError(
    400,
    "context_length_exceeded",
    `Request too long for model "${name}": about ${input} input tokens plus ${asked} ` +
      `is ${input + output} tokens, over its context window of ${window}. Shorten the input ` +
      `or lower ${protocolOf(request.protocol).fields.maxOutput}.`,
    { param: protocolOf(request.protocol).fields.input },
  );
}
