/**
 * Finish reasons: Gemini `finishReason` (Gemini API reference, `Candidate.FinishReason`;
 * `@google/genai` `FinishReason`) <-> IR.
 *
 * | Gemini                                                   | IR                              |
 * |----------------------------------------------------------|---------------------------------|
 * | STOP                                                     | stop (tool_calls beside a call) |
 * | MAX_TOKENS                                               | length                          |
 * | SAFETY, RECITATION, LANGUAGE, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY, IMAGE_PROHIBITED_CONTENT, IMAGE_RECITATION, MODEL_ARMOR | content_filter |
 * | MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS, MISSING_THOUGHT_SIGNATURE, MALFORMED_RESPONSE, OTHER, unknown | stop |
 * | a blocked prompt (`promptFeedback.blockReason`, no candidate) | content_filter             |
 *
 * Back to a Gemini client: stop, tool_calls and pause are `STOP` (Gemini ends a turn of
 * calls with `STOP`), length `MAX_TOKENS`, content_filter `SAFETY`.
 */
import type { IrFinish } from "../../translate/ir.ts";

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "LANGUAGE",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
  "MODEL_ARMOR",
]);

/** The IR finish of a `finishReason`; `calledTools` says whether the answer called any. */
export function finishOfReason(reason: unknown, calledTools: boolean): IrFinish {
  if (reason === "MAX_TOKENS") return "length";
  if (typeof reason === "string" && FILTERED.has(reason)) return "content_filter";
  return calledTools ? "tool_calls" : "stop";
}

const REASON_BY_FINISH: Readonly<Record<IrFinish, string>> = {
  stop: "STOP",
  tool_calls: "STOP",
  pause: "STOP",
  length: "MAX_TOKENS",
  content_filter: "SAFETY",
};

/** The `finishReason` of an IR finish. */
export function reasonOfFinish(finish: IrFinish): string {
  return REASON_BY_FINISH[finish];
}
