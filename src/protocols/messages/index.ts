/** The messages protocol (`POST /v1/messages`, and its `count_tokens`). */
import { encodeSse } from "../../translate/sse.ts";
import { asRecord } from "../json_read.ts";
import { modelMapped } from "../passthrough.ts";
import { collectText, conversationStart } from "../prompt_text.ts";
import type { Protocol, TokenCountEndpoint } from "../protocol.ts";
import { entryRequest, readEnvelope } from "../request.ts";
import { buildMessage, buildMessageEvents } from "./build.ts";
import { messagesCodec } from "./codec.ts";
import { MESSAGES_SHAPE, streamError, streamErrorEvents } from "./errors.ts";
import { streamContent, streamEnded } from "./progress.ts";
import { CountTokensRequestSchema, MessagesRequestSchema } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, usageFromResponse } from "./usage.ts";

/** `POST /v1/messages/count_tokens`: `{"input_tokens": N}`. */
const countTokens: TokenCountEndpoint = {
  parseRequest: (body) => parseCountTokensRequest(body),
  answer: (tokens) => ({ input_tokens: tokens }),
};

/** The messages protocol. */
export const messages: Protocol = {
  ...messagesCodec,
  name: "messages",
  upstream: {
    path: () => "/messages",
    countTokensPath: () => "/messages/count_tokens",
    modelInPath: false,
    credential: { header: "x-api-key" },
    forwardedHeaders: ["anthropic-version", "anthropic-beta"],
    defaultHeader: { name: "anthropic-version", value: "2023-06-01" },
    keepsQuery: true,
  },
  errorShape: MESSAGES_SHAPE,
  overloadedStatus: 529,
  fields: { input: "messages", maxOutput: "max_tokens" },
  conversation: {
    start: (body) => conversationStart(collectText(body.system), body.messages),
    // Claude Code puts its session in `metadata.user_id`.
    session: (body) => asRecord(body.metadata)?.user_id,
  },
  keepalive: encodeSse({ event: "ping", data: '{"type": "ping"}' }),
  takesPrefill: true,
  countTokens,
  idPrefix: "msg_",
  parseRequest(body) {
    const { fields, body: object } = readEnvelope(MessagesRequestSchema, body);
    return entryRequest("messages", fields.model, fields.stream, fields.max_tokens, object);
  },
  passthrough: modelMapped,
  promptText,
  usageFromResponse,
  createUsageTap,
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
