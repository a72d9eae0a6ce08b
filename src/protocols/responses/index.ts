/** The responses protocol (`POST /v1/responses`). */
import type { Protocol } from "../protocol.ts";
import { KEEPALIVE_COMMENT } from "../sse.ts";
import { entryRequest, readEnvelope } from "../request.ts";
import { buildResponse, buildResponseEvents } from "./build.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import { streamContent, streamEnded } from "./progress.ts";
import { ResponsesRequestSchema } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, encodeUsage, usageFromResponse } from "./usage.ts";

/** The responses protocol. */
export const responses: Protocol = {
  name: "responses",
  upstream: {
    path: "/responses",
    credential: "bearer",
    forwardedHeaders: ["openai-beta"],
    keepsQuery: false,
  },
  overloadedStatus: 503,
  fields: { input: "input", maxOutput: "max_output_tokens" },
  conversation: { leading: "instructions", turns: "input" },
  keepalive: KEEPALIVE_COMMENT,
  idPrefix: "resp_",
  parseRequest(body) {
    const { fields, body: object } = readEnvelope(ResponsesRequestSchema, body);
    return entryRequest("responses", fields.model, fields.stream, fields.max_output_tokens, object);
  },
  promptText,
  usageFromResponse,
  createUsageTap,
  encodeUsage,
  responseText,
  eventText,
  buildReply: buildResponse,
  buildReplyEvents: buildResponseEvents,
  streamErrorEvents,
  streamError,
  streamContent,
  streamEnded,
};
