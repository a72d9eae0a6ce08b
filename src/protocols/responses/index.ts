/** The responses protocol (`POST /v1/responses`). */
import { OPENAI_SHAPE } from "../../errors.ts";
import { KEEPALIVE_COMMENT } from "../../translate/sse.ts";
import { modelMapped } from "../passthrough.ts";
import { collectText, conversationStart } from "../prompt_text.ts";
import type { Protocol } from "../protocol.ts";
import { entryRequest, readEnvelope } from "../request.ts";
import { buildResponse, buildResponseEvents } from "./build.ts";
import { responsesCodec } from "./codec.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import { streamContent, streamEnded } from "./progress.ts";
import { ResponsesRequestSchema } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, usageFromResponse } from "./usage.ts";

/** The responses protocol. */
export const responses: Protocol = {
  ...responsesCodec,
  name: "responses",
  upstream: {
    path: () => "/responses",
    modelInPath: false,
    credential: { header: "authorization", scheme: "Bearer" },
    forwardedHeaders: ["openai-beta"],
    keepsQuery: false,
  },
  errorShape: OPENAI_SHAPE,
  overloadedStatus: 503,
  fields: { input: "input", maxOutput: "max_output_tokens" },
  conversation: {
    start: (body) => conversationStart(collectText(body.instructions), body.input),
  },
  keepalive: KEEPALIVE_COMMENT,
  // The responses API has no way to continue an assistant's text: no rescue lands on it.
  takesPrefill: false,
  idPrefix: "resp_",
  parseRequest(body) {
    const { fields, body: object } = readEnvelope(ResponsesRequestSchema, body);
    return entryRequest("responses", fields.model, fields.stream, fields.max_output_tokens, object);
  },
  passthrough: modelMapped,
  promptText,
  usageFromResponse,
  createUsageTap,
  responseText,
  eventText,
  buildReply: buildResponse,
  buildReplyEvents: buildResponseEvents,
  streamErrorEvents,
  streamError,
  streamContent,
  streamEnded,
};
