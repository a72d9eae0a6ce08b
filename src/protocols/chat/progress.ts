/**
 * How far a chat completion stream has come, for failover: whether a chunk carries the
 * answer's content (text, reasoning, a refusal or a tool call: the client may see it
 * now), and whether the stream ended properly (a `finish_reason`, or `[DONE]`).
 */
import { asRecord, parseEventData } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";

/** Whether the chunk carries content; parsed, since it is asked only until the first one. */
export function streamContent(event: SseEvent): boolean {
  const chunk = parseEventData(event.data);
  const choices = Array.isArray(chunk?.choices) ? chunk.choices : [];
  return choices.some((choice) => {
    const delta = asRecord(asRecord(choice)?.delta);
    if (!delta) return false;
    return ["content", "reasoning_content", "reasoning", "refusal"].some((field) =>
      typeof delta[field] === "string" && delta[field] !== ""
    ) || (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) ||
      delta.function_call != null;
  });
}

/** A `finish_reason` that is a string, however the server spaces its JSON. */
const FINISHED = /"finish_reason"\s*:\s*"/;

/**
 * Whether the chunk ends the answer properly: asked of every chunk, so read off the text (a
 * key inside a string of content would be escaped, so the pattern cannot match there).
 */
export function streamEnded(event: SseEvent): boolean {
  return event.data === "[DONE]" || FINISHED.test(event.data);
}
