/**
 * Builds messages replies: the `message` object and its event stream (Anthropic
 * `Message`, `RawMessageStreamEvent`).
 */
import type { TextReply } from "../types.ts";
import type { SseEvent } from "../../translate/sse.ts";
import { encodeUsage } from "./usage.ts";

const STOP_REASON = { stop: "end_turn", length: "max_tokens" } as const;

/** The `message` object of a reply. */
export function buildMessage(reply: TextReply): Record<string, unknown> {
  const message = messageShell(reply, [{ type: "text", text: reply.deltas.join("") }]);
  message.stop_reason = STOP_REASON[reply.finish];
  if (reply.usage) message.usage = encodeUsage(reply.usage);
  return message;
}

/**
 * The event stream of a reply: message_start, content_block_start, ping, one
 * content_block_delta per delta, content_block_stop, message_delta, message_stop.
 */
export function buildMessageEvents(reply: TextReply): SseEvent[] {
  const event = (body: { type: string; [key: string]: unknown }): SseEvent => ({
    event: body.type,
    data: JSON.stringify(body),
  });
  const start = messageShell(reply, []);
  // As the API does: message_start reports the input, output is counted in message_delta.
  if (reply.usage) start.usage = { ...encodeUsage(reply.usage), output_tokens: 0 };
  const events = [
    event({ type: "message_start", message: start }),
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    event({ type: "ping" }),
  ];
  for (const text of reply.deltas) {
    events.push(
      event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
    );
  }
  events.push(event({ type: "content_block_stop", index: 0 }));
  const delta: { type: string; [key: string]: unknown } = {
    type: "message_delta",
    delta: { stop_reason: STOP_REASON[reply.finish], stop_sequence: null },
  };
  if (reply.usage) {
    const { service_tier: _, ...usage } = encodeUsage(reply.usage);
    delta.usage = usage;
  }
  events.push(event(delta), event({ type: "message_stop" }));
  return events;
}

function messageShell(reply: TextReply, content: unknown[]): Record<string, unknown> {
  return {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model,
    content,
    stop_reason: null,
    stop_sequence: null,
  };
}
