/** The messages protocol (`POST /v1/messages`, and its `count_tokens`). */
import type { Protocol } from "../protocol.ts";
import { encodeSse } from "../sse.ts";
import { entryRequest, requireObject, validate } from "../request.ts";
import { buildMessage, buildMessageEvents } from "./build.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import {
  COUNT_TOKENS_FIELDS,
  type CountTokensBody,
  MESSAGES_REQUEST_FIELDS,
  type MessagesRequest,
} from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, encodeUsage, usageFromResponse } from "./usage.ts";

/** The messages protocol. */
export const messages: Protocol = {
  name: "messages",
  keepalive: encodeSse({ event: "ping", data: '{"type": "ping"}' }),
  idPrefix: "msg_",
  parseRequest(body) {
    const object = requireObject(body);
    const parsed = validate<MessagesRequest>(MESSAGES_REQUEST_FIELDS, object);
    return entryRequest("messages", parsed.model, parsed.stream, parsed.max_tokens, object);
  },
  promptText,
  usageFromResponse,
  createUsageTap,
  encodeUsage,
  responseText,
  eventText,
  buildReply: (reply) => buildMessage(reply),
  buildReplyEvents: (reply) => buildMessageEvents(reply),
  streamErrorEvents,
  streamError,
};

/** A `POST /v1/messages/count_tokens` request. */
export interface CountTokensRequest {
  model: string;
  body: Record<string, unknown>;
}

/** Validates a count_tokens body; throws like `parseRequest`. */
export function parseCountTokensRequest(body: unknown): CountTokensRequest {
  const object = requireObject(body);
  return { model: validate<CountTokensBody>(COUNT_TOKENS_FIELDS, object).model, body: object };
}
