/**
 * A Gemini upstream's whole answer (`GenerateContentResponse`: Gemini API reference,
 * "Generating content") as an IR response: the first candidate's parts, its
 * `finishReason` (finish.ts), `usageMetadata` (usage.ts), `responseId`, `modelVersion`.
 *
 * | part                              | IR                                                  |
 * |-----------------------------------|-----------------------------------------------------|
 * | `text`                            | text (adjacent ones joined)                          |
 * | `text` with `thought: true`       | reasoning (adjacent ones joined)                     |
 * | `functionCall`                    | tool_call: its `id`, else `call_<responseId>_<n>` (Gemini 2.5 gives none) |
 * | `thoughtSignature`                | opaque `gemini_signature` of the reasoning before its part (an empty reasoning part when the thoughts were not sent) |
 * | `inlineData`, `executableCode`, ... | left out (no IR part holds them)                   |
 */
import type { IrAssistantPart, IrResponse } from "../../translate/ir.ts";
import { opaqueOfSignature } from "./content.ts";
import { asRecord, fields, listOf, stringOr } from "../json_read.ts";
import { argumentsOf } from "./content.ts";
import { finishOfReason } from "./finish.ts";
import { usageFromResponse } from "./usage.ts";

/** Decodes a `GenerateContentResponse` (tolerant of missing fields). */
export function decodeGeminiResponse(json: unknown): IrResponse {
  const body = fields(json);
  const id = stringOr(body.responseId);
  const candidate = fields(listOf(body.candidates)[0]);
  const parts: IrAssistantPart[] = [];
  let calls = 0;
  for (const value of listOf(fields(candidate.content).parts)) {
    const part = fields(value);
    if (part.thought !== true) signReasoning(parts, part.thoughtSignature);
    const last = parts[parts.length - 1];
    const call = asRecord(part.functionCall);
    if (call) {
      parts.push({
        type: "tool_call",
        id: callId(call, id, calls++),
        name: stringOr(call.name),
        arguments: argumentsOf(call.args),
      });
    } else if (typeof part.text === "string" && part.text) {
      const kind = part.thought === true ? "reasoning" : "text";
      const signed = last?.type === "reasoning" && last.opaque !== undefined;
      if (last?.type === kind && !signed) last.text += part.text;
      else parts.push({ type: kind, text: part.text });
    }
    if (part.thought === true) signReasoning(parts, part.thoughtSignature);
  }
  // A prompt blocked before any candidate says why in `promptFeedback`.
  const blocked = listOf(body.candidates).length === 0 &&
    asRecord(body.promptFeedback)?.blockReason;
  const response: IrResponse = {
    id,
    model: stringOr(body.modelVersion),
    parts,
    finish: blocked ? "content_filter" : finishOfReason(candidate.finishReason, calls > 0),
  };
  const created = Date.parse(stringOr(body.createTime));
  if (Number.isFinite(created)) response.created = Math.floor(created / 1000);
  const usage = usageFromResponse(json);
  if (usage) response.usage = usage;
  return response;
}

/**
 * Puts a part's `thoughtSignature` on the reasoning just before it (Gemini signs the first
 * part after its thoughts), or on an empty reasoning part when no thought was sent.
 */
export function signReasoning(parts: IrAssistantPart[], signature: unknown): void {
  if (typeof signature !== "string" || !signature) return;
  const last = parts[parts.length - 1];
  const opaque = opaqueOfSignature(signature);
  if (last?.type === "reasoning" && !last.opaque) last.opaque = opaque;
  else parts.push({ type: "reasoning", text: "", opaque });
}

/**
 * A call's id: its own, else one made of the response id and its place, the same in the
 * answer the client gets and in the history it sends back.
 */
export function callId(call: Record<string, unknown>, responseId: string, index: number): string {
  return stringOr(call.id) || `call_${responseId || "gemini"}_${index}`;
}
