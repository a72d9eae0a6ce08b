/** The chat-completions protocol (`POST /v1/chat/completions`). */
import type { Protocol } from "../protocol.ts";
import { KEEPALIVE_COMMENT } from "../sse.ts";
import { entryRequest, readEnvelope } from "../request.ts";
import { buildChatCompletion, buildChatEvents } from "./build.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import { streamContent, streamEnded } from "./progress.ts";
import { ChatRequestSchema } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, encodeUsage, usageFromResponse } from "./usage.ts";
import { asRecord } from "../json_read.ts";

/** The chat-completions protocol. */
export const chat: Protocol = {
  name: "chat",
  upstream: {
    path: "/chat/completions",
    credential: "bearer",
    forwardedHeaders: ["openai-beta"],
    keepsQuery: false,
  },
  overloadedStatus: 503,
  fields: { input: "messages", maxOutput: "max_completion_tokens" },
  conversation: { turns: "messages" },
  keepalive: KEEPALIVE_COMMENT,
  idPrefix: "chatcmpl-",
  parseRequest(body) {
    const { fields, body: object } = readEnvelope(ChatRequestSchema, body);
    const max = fields.max_completion_tokens ?? fields.max_tokens;
    return entryRequest("chat", fields.model, fields.stream, max, object);
  },
  promptText,
  usageFromResponse,
  createUsageTap,
  encodeUsage,
  responseText,
  eventText,
  buildReply: (reply) => buildChatCompletion(reply),
  buildReplyEvents: (reply, request) =>
    buildChatEvents(reply, {
      includeUsage: asRecord(request.stream_options)?.include_usage === true,
    }),
  streamErrorEvents,
  streamError,
  streamContent,
  streamEnded,
};
