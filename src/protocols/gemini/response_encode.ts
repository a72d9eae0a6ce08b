/**
 * An IR answer as a Gemini client's `GenerateContentResponse` (Gemini API reference,
 * "Generating content"; what `@google/genai` and Gemini CLI read): one candidate whose
 * content has the model's role, its `finishReason` (finish.ts), `usageMetadata`
 * (usage.ts; the gateway's estimate of the input when the upstream said none),
 * `modelVersion` (the model the client asked for) and a fresh `responseId`.
 *
 * | IR                      | part                                                   |
 * |-------------------------|--------------------------------------------------------|
 * | text, refusal           | `text`                                                 |
 * | reasoning               | `text` with `thought: true`                            |
 * | reasoning's opaque state| `thoughtSignature` (Gemini's own as it is, another's wrapped: content.ts) on the next part that is not a thought, as Gemini places its own; an empty text part carries it when none follows |
 * | tool_call               | `functionCall` {id, name, args}                         |
 *
 * Gemini CLI keeps no thought parts in its history, only the others: the signature rides
 * on one of those so that it comes back.
 */
import type { ResponseEncodeContext } from "../../translate/codec.ts";
import type { IrAssistantPart, IrOpaque, IrResponse } from "../../translate/ir.ts";
import { signatureOf } from "./content.ts";
import { reasonOfFinish } from "./finish.ts";
import { responseOf } from "./response_shape.ts";
import { inputOf } from "../../translate/encoding.ts";
import { estimatedUsage } from "../../translate/encoding.ts";

type Json = Record<string, unknown>;

/** Puts each reasoning part's opaque state on the next part that is not a thought. */
export class SignatureCarrier {
  #pending: string | undefined;

  /**
   * Holds the signature of `opaque` for the next part; returns the part that must carry
   * a signature still held (two states in a row: the first gets an empty text part).
   */
  hold(opaque: IrOpaque): Json | undefined {
    const carrier = this.flush();
    this.#pending = signatureOf(opaque);
    return carrier;
  }

  /** `part` with the held signature on it, if any. */
  carry(part: Json): Json {
    if (this.#pending === undefined) return part;
    const carried = { ...part, thoughtSignature: this.#pending };
    this.#pending = undefined;
    return carried;
  }

  /** An empty text part carrying the held signature, or undefined when none is held. */
  flush(): Json | undefined {
    return this.#pending === undefined ? undefined : this.carry({ text: "" });
  }
}

/** The `functionCall` part of a call. */
export function functionCallPart(id: string, name: string, args: string): Json {
  return { functionCall: { id, name, args: inputOf(args) } };
}

/** The parts of an answer. */
export function partsOf(parts: IrAssistantPart[]): Json[] {
  const carrier = new SignatureCarrier();
  const out: Json[] = [];
  for (const part of parts) {
    if (part.type === "reasoning") {
      const flushed = carrier.flush();
      if (flushed) out.push(flushed);
      if (part.text) out.push({ text: part.text, thought: true });
      if (part.opaque) carrier.hold(part.opaque);
    } else if (part.type === "tool_call") {
      out.push(carrier.carry(functionCallPart(part.id, part.name, part.arguments)));
    } else if (part.text) out.push(carrier.carry({ text: part.text }));
  }
  const flushed = carrier.flush();
  if (flushed) out.push(flushed);
  return out;
}

/** The client's `GenerateContentResponse` for an answer. */
export function encodeGeminiResponse(
  response: IrResponse,
  context: ResponseEncodeContext,
): Record<string, unknown> {
  return responseOf(partsOf(response.parts), {
    model: context.model,
    id: context.newId(""),
    finishReason: reasonOfFinish(response.finish),
    usage: response.usage ?? estimatedUsage(context),
  });
}
