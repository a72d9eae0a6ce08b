/** Errors inside a messages stream: the `error` event. */
import { errorBody, type GatewayError } from "../../errors.ts";
import { statusOfErrorType } from "../error_status.ts";
import { asRecord, parseEventData, stringOr } from "../json_read.ts";
import type { SseEvent } from "../sse.ts";
import type { StreamErrorReport } from "../types.ts";

/** The `error` event (Anthropic's error shape) that ends a stream. */
export function streamErrorEvents(error: GatewayError, requestId: string): SseEvent[] {
  return [{ event: "error", data: JSON.stringify(errorBody(error, "messages", requestId)) }];
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
