/** The messages protocol (`POST /v1/messages`, and its `count_tokens`). */
import type { Protocol } from "../protocol.ts";
import { asRecord } from "../json_read.ts";
import { encodeSse } from "../sse.ts";
import { entryRequest, readEnvelope } from "../request.ts";
import { buildMessage, buildMessageEvents } from "./build.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import { streamContent, streamEnded } from "./progress.ts";
import { CountTokensRequestSchema, MessagesRequestSchema } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, encodeUsage, usageFromResponse } from "./usage.ts";

/** The messages protocol. */
export const messages: Protocol = {
  name: "messages",
  upstream: {
    path: "/messages",
    countTokensPath: "/messages/count_tokens",
    credential: "x-api-key",
    forwardedHeaders: ["anthropic-version", "anthropic-beta"],
    defaultHeader: { name: "anthropic-version", value: "2023-06-01" },
    keepsQuery: true,
  },
  overloadedStatus: 529,
  fields: { input: "messages", maxOutput: "max_tokens" },
  // Claude Code puts its session in `metadata.user_id`.
  conversation: {
    leading: "system",
    turns: "messages",
    session: (body) => asRecord(body.metadata)?.user_id,
  },
  keepalive: encodeSse({ event: "ping", data: '{"type": "ping"}' }),
  idPrefix: "msg_",
  parseRequest(body) {
    const { fields, body: object } = readEnvelope(MessagesRequestSchema, body);
    return entryRequest("messages", fields.model, fields.stream, fields.max_tokens, object);
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
  streamContent,
  streamEnded,
};

/** A `POST /v1/messages/count_tokens` request. */
export interface CountTokensRequest {
  model: string;
  body: Record<string, unknown>;
}

/** Validates a count_tokens body; throws like `parseRequest`. */
export function parseCountTokensRequest(body: unknown): CountTokensRequest {
  const { fields, body: object } = readEnvelope(CountTokensRequestSchema, body);
  return { model: fields.model, body: object };
}
