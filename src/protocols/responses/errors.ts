/** Errors inside a responses stream: the `error` event, and `response.failed`. */
import type { GatewayError } from "../../errors.ts";
import { statusOfErrorType } from "../error_status.ts";
import { asRecord, parseEventData, stringOr } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { StreamErrorReport } from "../../translate/codec.ts";

/** The `error` event (OpenAI `ResponseErrorEvent`) that ends a stream. */
export function streamErrorEvents(error: GatewayError, requestId: string): SseEvent[] {
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
}

/** The error an `error` or `response.failed` event reports. */
export function streamError(event: SseEvent): StreamErrorReport | undefined {
  const name = event.event;
  if (name !== undefined && name !== "error" && name !== "response.failed") return undefined;
  const data = parseEventData(event.data);
  let error: Record<string, unknown> | undefined;
  if (data?.type === "error") error = asRecord(data.error) ?? data;
  else if (data?.type === "response.failed") error = asRecord(asRecord(data.response)?.error) ?? {};
  if (!error) return undefined;
  const type = stringOr(error.code) || stringOr(error.type) || undefined;
  return { status: statusOfErrorType(type), type, message: stringOr(error.message) || undefined };
}
