/**
 * Errors in Google's shape (Google AIP-193 "Errors"; the Gemini API reference,
 * "Troubleshooting", error codes): `{"error": {"code", "message", "status", "details"}}`,
 * as an HTTP error body and, in a stream, as a plain `data:` line that the SDKs raise
 * as an `ApiError` (`@google/genai` `throwIfStreamErrorChunk` needs a numeric `code`).
 */
import type { ErrorShape, GatewayError } from "../../errors.ts";
import { asRecord, parseEventData, stringOr } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { StreamErrorReport } from "../../translate/codec.ts";

/**
 * The `status` name of each HTTP status tollgate answers with (`google.rpc.Code`, whose
 * comments give each code's HTTP status). Statuses Google does not use take the nearest.
 */
const NAME_BY_STATUS: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  // A body that did not arrive in time (tollgate's 408).
  408: "DEADLINE_EXCEEDED",
  409: "ABORTED",
  // Google answers an oversized payload with 400 INVALID_ARGUMENT.
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  // An upstream that failed or is overloaded: the backend is unavailable, try again.
  502: "UNAVAILABLE",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
  529: "UNAVAILABLE",
};

/** The HTTP status of each `google.rpc.Code` name (code.proto), for an upstream's error. */
const STATUS_BY_NAME: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  ABORTED: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  UNKNOWN: 500,
  INTERNAL: 500,
  DATA_LOSS: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** Google's status name for an HTTP status: the table's, else by class. */
export function statusName(status: number): string {
  return NAME_BY_STATUS[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
}

/**
 * An error's body in Google's shape. `details` carries an `ErrorInfo` whose `reason` is
 * tollgate's error code (and the request id in its metadata), and a `RetryInfo` when the
 * error says how long to wait: Gemini CLI waits that long before it retries a 429.
 */
export function geminiErrorBody(error: GatewayError, requestId: string): Record<string, unknown> {
  const metadata: Record<string, string> = { request_id: requestId };
  if (error.param) metadata.param = error.param;
  const details: Record<string, unknown>[] = [{
    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
    reason: error.code,
    domain: "tollgate",
    metadata,
  }];
  const retryAfter = retryAfterSeconds(error.headers);
  if (retryAfter !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: `${retryAfter}s`,
    });
  }
  return {
    error: {
      code: error.status,
      message: error.message,
      status: statusName(error.status),
      details,
    },
  };
}

function retryAfterSeconds(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== "retry-after") continue;
    const seconds = Number(value);
    return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
  }
  return undefined;
}

/** Google's error shape, for an error that ends a request before its answer began. */
export const GEMINI_SHAPE: ErrorShape = { body: geminiErrorBody };

/** The stream's error: one `data:` line with the error body (no event name, as Google sends it). */
export function streamErrorEvents(error: GatewayError, requestId: string): SseEvent[] {
  return [{ data: JSON.stringify(geminiErrorBody(error, requestId)) }];
}

/** The error a stream chunk reports, if it carries `error`. */
export function streamError(event: SseEvent): StreamErrorReport | undefined {
  if (!event.data.includes('"error"')) return undefined;
  const error = asRecord(parseEventData(event.data)?.error);
  if (!error) return undefined;
  const name = stringOr(error.status) || undefined;
  const code = error.code;
  const status = typeof code === "number" && code >= 400 && code < 600
    ? code
    : (name && STATUS_BY_NAME[name]) || 500;
  return { status, type: name, message: stringOr(error.message) || undefined };
}
