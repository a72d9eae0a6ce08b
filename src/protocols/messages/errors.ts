/** Errors in the messages protocol's shape: an error's body, and the `error` event of a stream. */
import { type ErrorShape, type GatewayError, messagesErrorType } from "../../errors.ts";
import { statusOfErrorType } from "../error_status.ts";
import { asRecord, parseEventData, stringOr } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { StreamErrorReport } from "../../translate/codec.ts";

/** Anthropic's error shape: `{"type": "error", "error": {"type", "message", "code"}, "request_id"}`. */
export const MESSAGES_SHAPE: ErrorShape = {
  body: (error, requestId) => ({
    type: "error",
    error: { type: messagesErrorType(error), message: error.message, code: error.code },
    request_id: requestId,
  }),
};

/** The `error` event (Anthropic's error shape) that ends a stream. */
export function streamErrorEvents(error: GatewayError, requestId: string): SseEvent[] {
  return [{ event: "error", data: JSON.stringify(MESSAGES_SHAPE.body(error, requestId)) }];
}

/** The error an `error` event reports (`overloaded_error` stands for 529). */
export function streamError(event: SseEvent): StreamErrorReport | undefined {
  if (event.event !== undefined && event.event !== "error") return undefined;
  const data = parseEventData(event.data);
  if (data?.type !== "error") return undefined;
  const error = asRecord(data.error) ?? {};
  const type = stringOr(error.type) || undefined;
  return { status: statusOfErrorType(type), type, message: stringOr(error.message) || undefined };
}
