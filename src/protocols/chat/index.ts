/** The chat-completions protocol (`POST /v1/chat/completions`). */
import type { Protocol } from "../protocol.ts";
import { KEEPALIVE_COMMENT } from "../sse.ts";
import { entryRequest, requireObject, validate } from "../request.ts";
import { buildChatCompletion, buildChatEvents } from "./build.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import { CHAT_REQUEST_FIELDS, type ChatRequest } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, encodeUsage, usageFromResponse } from "./usage.ts";
import { asRecord } from "../json_read.ts";

/** The chat-completions protocol. */
export const chat: Protocol = {
  name: "chat",
  keepalive: KEEPALIVE_COMMENT,
  idPrefix: "chatcmpl-",
  parseRequest(body) {
    const object = requireObject(body);
    const parsed = validate<ChatRequest>(CHAT_REQUEST_FIELDS, object);
    const max = parsed.max_completion_tokens ?? parsed.max_tokens;
    return entryRequest("chat", parsed.model, parsed.stream, max, object);
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
};
