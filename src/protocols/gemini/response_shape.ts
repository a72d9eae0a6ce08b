/**
 * The shape of a `GenerateContentResponse` as tollgate writes it, whole or as one stream
 * chunk (Gemini API reference, "Generating content": `GenerateContentResponse`,
 * `Candidate`; `@google/genai` reads the same): one candidate, index 0, whose content has
 * the model's role. Stream chunks carry only their new parts; the last one the
 * `finishReason` and the usage.
 */

import { encodeUsage } from "./usage.ts";
import type { Usage } from "../../usage.ts";

/** What a response or chunk says beside its parts. */
export interface ResponseFields {
  /** The model's name for the client (`modelVersion`). */
  model: string;
  /** The response id (`responseId`), the same on every chunk of a stream. */
  id: string;
  /** `finishReason` (`STOP`, `MAX_TOKENS`, ...): the last chunk only. */
  finishReason?: string;
  usage?: Usage;
}

/** A `GenerateContentResponse` with `parts` as its one candidate's content. */
export function responseOf(
  parts: Record<string, unknown>[],
  fields: ResponseFields,
): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { parts, role: "model" } };
  if (fields.finishReason) candidate.finishReason = fields.finishReason;
  candidate.index = 0;
  const response: Record<string, unknown> = { candidates: [candidate] };
  if (fields.usage) response.usageMetadata = encodeUsage(fields.usage);
  response.modelVersion = fields.model;
  response.responseId = fields.id;
  return response;
}

/**
 * The part that ends a stream beside its `finishReason`: Gemini itself ends with an empty
 * text part, and the SDK's chat history takes a chunk with no parts as an invalid answer.
 */
export const CLOSING_PART: Readonly<Record<string, unknown>> = Object.freeze({ text: "" });
