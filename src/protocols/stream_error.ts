/** The error event that ends a stream, in each protocol's own shape. */
import type { EntryProtocol } from "../config/schema.ts";
import { errorBody, type GatewayError } from "../errors.ts";
import type { SseEvent } from "./sse.ts";

/** The events that report `error` to a client mid-stream, after which the stream closes. */
export function streamErrorEvents(
  protocol: EntryProtocol,
  error: GatewayError,
  requestId: string,
): SseEvent[] {
  switch (protocol) {
    case "chat":
      // The OpenAI SDKs raise an APIError for a chunk that carries `error`: the error body itself.
      return [{ data: JSON.stringify(errorBody(error, "openai", requestId)) }];
    case "responses":
      return [{
        event: "error",
        data: JSON.stringify({
          type: "error",
          code: error.code,
          message: error.message,
          param: null,
          request_id: requestId,
        }),
      }];
    case "messages":
      return [{ event: "error", data: JSON.stringify(errorBody(error, "messages", requestId)) }];
  }
}
