/**
 * A finished assistant text reply, and how to render it as any protocol's response body
 * or event stream. The echo channel and the test fakes answer through this.
 */
import type { EntryProtocol } from "../config/schema.ts";
import { buildChatCompletion, buildChatEvents } from "./chat/build.ts";
import { asRecord } from "./json_read.ts";
import { buildMessage, buildMessageEvents } from "./messages/build.ts";
import { buildResponse, buildResponseEvents } from "./responses/build.ts";
import type { SseEvent } from "./sse.ts";
import type { Usage } from "./usage.ts";

/** A text reply in protocol-neutral terms. */
export interface TextReply {
  /** The response id in the protocol's own style (see `replyId`). */
  id: string;
  model: string;
  /** Unix time in seconds. */
  created: number;
  /** The reply text in stream pieces; joined they are the whole text. */
  deltas: string[];
  /** `length` when the output token cap cut the reply short. */
  finish: "stop" | "length";
  /** Omitted: the reply reports no usage at all. */
  usage?: Usage;
}

const ID_PREFIX: Record<EntryProtocol, string> = {
  chat: "chatcmpl-",
  responses: "resp_",
  messages: "msg_",
};

/** A fresh response id in the protocol's style: `chatcmpl-…`, `resp_…` or `msg_…`. */
export function replyId(protocol: EntryProtocol): string {
  return ID_PREFIX[protocol] + crypto.randomUUID().replaceAll("-", "");
}

/** The full (non-stream) response body of a reply, shaped by the client's request. */
export function buildReplyBody(
  protocol: EntryProtocol,
  reply: TextReply,
  request: Record<string, unknown> = {},
): Record<string, unknown> {
  switch (protocol) {
    case "chat":
      return buildChatCompletion(reply);
    case "responses":
      return buildResponse(reply, request);
    case "messages":
      return buildMessage(reply);
  }
}

/** The stream events of a reply, shaped by the client's request (`include_usage`, say). */
export function buildReplyEvents(
  protocol: EntryProtocol,
  reply: TextReply,
  request: Record<string, unknown> = {},
): SseEvent[] {
  switch (protocol) {
    case "chat": {
      const includeUsage = asRecord(request.stream_options)?.include_usage === true;
      return buildChatEvents(reply, { includeUsage });
    }
    case "responses":
      return buildResponseEvents(reply, request);
    case "messages":
      return buildMessageEvents(reply);
  }
}
