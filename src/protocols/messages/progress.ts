/**
 * How far a messages stream has come, for failover: whether an event carries the answer's
 * content (a block delta, or a tool call's block beginning), and whether the stream ended
 * properly (`message_delta` with the stop reason, or `message_stop`).
 */
import { asRecord, parseEventData } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";

/** The event's type: its name, or the `type` its data begins with when a proxy dropped names. */
function typeOf(event: SseEvent): string | undefined {
  return event.event ?? /^\s*\{\s*"type"\s*:\s*"([^"]+)"/.exec(event.data)?.[1];
}

/** Whether the event carries content. */
export function streamContent(event: SseEvent): boolean {
  const type = typeOf(event);
  if (type === "content_block_delta") return true;
  if (type !== "content_block_start") return false;
  const block = asRecord(parseEventData(event.data)?.content_block);
  return block?.type === "tool_use" || block?.type === "server_tool_use";
}

/** Whether the event ends the answer properly. */
export function streamEnded(event: SseEvent): boolean {
  const type = typeOf(event);
  return type === "message_stop" || type === "message_delta";
}
