/** The wire writers by protocol, and each protocol's mid-stream error event. */
import type { Behaviour, WireProtocol } from "./behaviour.ts";
import { chatBody, chatErrorFrame, chatStream } from "./chat_wire.ts";
import { geminiBody, geminiErrorFrame, geminiStream } from "./gemini_wire.ts";
import { messagesBody, messagesErrorFrame, messagesStream } from "./messages_wire.ts";
import type { FakeReply, WireContext, WireFrame } from "./reply.ts";
import {
  responsesBody,
  responsesErrorFrame,
  responsesFailedFrame,
  responsesStream,
} from "./responses_wire.ts";

/** Every wire a fake writes: the three of WireProtocol, and Gemini's (see gemini_wire.ts). */
export type FakeWire = WireProtocol | "gemini";

/** A protocol's id prefix, whole answer and classified stream. */
export interface Wire {
  prefix: string;
  body(reply: FakeReply, context: WireContext): Record<string, unknown>;
  stream(reply: FakeReply, context: WireContext): WireFrame[];
}

/** The wire writers by protocol. */
export const WIRES: Record<FakeWire, Wire> = {
  chat: { prefix: "chatcmpl-", body: chatBody, stream: chatStream },
  responses: { prefix: "resp_", body: responsesBody, stream: responsesStream },
  messages: { prefix: "msg_", body: messagesBody, stream: messagesStream },
  gemini: { prefix: "", body: geminiBody, stream: geminiStream },
};

const SERVER_ERROR = "The server had an error while processing your request. Sorry about that!";

/**
 * The protocol's error event for `behaviour` (`streamError`, else the older
 * `midStreamError`), as the `sequence`-th event of a stream.
 */
export function streamErrorFrame(
  protocol: FakeWire,
  behaviour: Behaviour,
  sequence: number,
  context: WireContext,
): string {
  const fault = behaviour.streamError;
  const message = fault
    ? fault.message ?? (protocol === "messages" ? "Overloaded" : SERVER_ERROR)
    : behaviour.midStreamError?.message ?? "The fake upstream failed.";
  if (protocol === "chat") return chatErrorFrame(message, fault?.type);
  if (protocol === "messages") return messagesErrorFrame(message, fault?.type);
  if (protocol === "gemini") return geminiErrorFrame(message, fault?.type);
  if (fault?.event === "response.failed") {
    return responsesFailedFrame(context, message, sequence, fault.type);
  }
  return responsesErrorFrame(message, sequence, fault?.type);
}
