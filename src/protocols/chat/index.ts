/** The chat-completions protocol (`POST /v1/chat/completions`). */
import { OPENAI_SHAPE } from "../../errors.ts";
import { KEEPALIVE_COMMENT } from "../../translate/sse.ts";
import { asRecord } from "../json_read.ts";
import { conversationStart } from "../prompt_text.ts";
import type { Protocol } from "../protocol.ts";
import { entryRequest, readEnvelope } from "../request.ts";
import { buildChatCompletion, buildChatEvents } from "./build.ts";
import { chatCodec } from "./codec.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import { chatPassthrough } from "./passthrough.ts";
import { streamContent, streamEnded } from "./progress.ts";
import { ChatRequestSchema } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, usageFromResponse } from "./usage.ts";

/** The chat-completions protocol. */
export const chat: Protocol = {
  ...chatCodec,
  name: "chat",
  upstream: {
    path: () => "/chat/completions",
    embeddingsPath: "/embeddings",
    modelInPath: false,
    credential: { header: "authorization", scheme: "Bearer" },
    forwardedHeaders: ["openai-beta"],
    keepsQuery: false,
  },
  errorShape: OPENAI_SHAPE,
  overloadedStatus: 503,
  fields: { input: "messages", maxOutput: "max_completion_tokens" },
  // System messages are turns: those before the first user message lead the conversation.
  conversation: { start: (body) => conversationStart([], body.messages) },
  keepalive: KEEPALIVE_COMMENT,
  takesPrefill: true,
  idPrefix: "chatcmpl-",
  parseRequest(body) {
    const { fields, body: object } = readEnvelope(ChatRequestSchema, body);
    const max = fields.max_completion_tokens ?? fields.max_tokens;
    return entryRequest("chat", fields.model, fields.stream, max, object);
  },
  passthrough: chatPassthrough,
  promptText,
  usageFromResponse,
  createUsageTap,
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
