/**
 * How far a responses stream has come, for failover: whether an event carries the
 * answer's content (any `*.delta`: text, refusal, reasoning, arguments; or a tool call's
 * item beginning), and whether the stream ended properly (`response.completed` or
 * `response.incomplete`; `response.failed` is an error, streamError's).
 */
import { asRecord, parseEventData } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";

/** The event's type: its name, or its data's `type` when a proxy dropped names. */
function typeOf(event: SseEvent): string | undefined {
  if (event.event !== undefined) return event.event;
  const type = parseEventData(event.data)?.type;
  return typeof type === "string" ? type : undefined;
}

/** Whether the event carries content. */
export function streamContent(event: SseEvent): boolean {
  const type = typeOf(event);
  if (type?.endsWith(".delta")) return true;
  if (type !== "response.output_item.added") return false;
  const item = asRecord(parseEventData(event.data)?.item);
  return typeof item?.type === "string" && item.type.endsWith("_call");
}

/** Whether the event ends the answer properly. */
export function streamEnded(event: SseEvent): boolean {
  const type = typeOf(event);
  return type === "response.completed" || type === "response.incomplete";
}
