/**
 * How far a Gemini stream has come, for failover: whether a chunk carries the answer's
 * content (a text, thought or function-call part of its first candidate), and whether the
 * stream ended properly (a chunk with the candidate's `finishReason`).
 */
import { asRecord, parseEventData } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";

/** Whether the chunk carries content; parsed, since it is asked only until the first one. */
export function streamContent(event: SseEvent): boolean {
  const chunk = parseEventData(event.data);
  const candidate = Array.isArray(chunk?.candidates) ? asRecord(chunk.candidates[0]) : undefined;
  const parts = asRecord(candidate?.content)?.parts;
  if (!Array.isArray(parts)) return false;
  return parts.some((value) => {
    const part = asRecord(value);
    return part !== undefined &&
      ((typeof part.text === "string" && part.text !== "") || part.functionCall != null);
  });
}

/** A `finishReason` that is set, however the server spaces its JSON. */
const FINISHED = /"finishReason"\s*:\s*"/;

/** Whether the chunk ends the answer: asked of every chunk, so read off the text. */
export function streamEnded(event: SseEvent): boolean {
  return FINISHED.test(event.data);
}
