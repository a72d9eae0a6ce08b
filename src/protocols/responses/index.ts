/** The responses protocol (`POST /v1/responses`). */
import type { Protocol } from "../protocol.ts";
import { KEEPALIVE_COMMENT } from "../sse.ts";
import { entryRequest, requireObject, validate } from "../request.ts";
import { buildResponse, buildResponseEvents } from "./build.ts";
import { streamError, streamErrorEvents } from "./errors.ts";
import { RESPONSES_REQUEST_FIELDS, type ResponsesRequest } from "./schema.ts";
import { eventText, promptText, responseText } from "./text.ts";
import { createUsageTap, encodeUsage, usageFromResponse } from "./usage.ts";

/** The responses protocol. */
export const responses: Protocol = {
  name: "responses",
  keepalive: KEEPALIVE_COMMENT,
  idPrefix: "resp_",
  parseRequest(body) {
    const object = requireObject(body);
    const parsed = validate<ResponsesRequest>(RESPONSES_REQUEST_FIELDS, object);
    return entryRequest("responses", parsed.model, parsed.stream, parsed.max_output_tokens, object);
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
};
