/**
 * The one error type of tollgate and its two renderings: the OpenAI shape
 * (models, chat, responses) and the messages shape (every path under /v1/messages).
 */
import type { Awaitable } from "./awaitable.ts";
import { DatabaseUnavailableError } from "./db/store.ts";
import type { Answer } from "./http/answer.ts";

/** Which body shape an error is rendered in; decided by the path, not the channel. */
export type ErrorShape = "openai" | "messages";

/** Options that travel with a GatewayError beyond status, code and message. */
export interface GatewayErrorOptions {
  /** The request field at fault (OpenAI `param`). */
  param?: string;
  /** Extra response headers, such as `Retry-After`. */
  headers?: Record<string, string>;
  /** For the log only: never rendered to the client. */
  cause?: unknown;
  /** Overrides the messages-shape `error.type` derived from status and code. */
  messagesType?: string;
}

/** An error a request can end in: thrown where things fail, rendered once. */
export class GatewayError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param?: string;
  readonly headers?: Record<string, string>;
  readonly messagesType?: string;

  constructor(status: number, code: string, message: string, options: GatewayErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "GatewayError";
    this.status = status;
    this.code = code;
    this.param = options.param;
    this.headers = options.headers;
    this.messagesType = options.messagesType;
  }
}

const MESSAGES_TYPE_BY_STATUS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/** The messages-shape `error.type` of an error, per design.md's catalogue. */
export function messagesErrorType(error: GatewayError): string {
  if (error.messagesType) return error.messagesType;
  if (error.code === "model_not_found") return "not_found_error";
  if (error.code === "channel:no_available_key") return "overloaded_error";
  return MESSAGES_TYPE_BY_STATUS[error.status] ?? "api_error";
}

/** The OpenAI-shape `error.type` of an error. */
export function openaiErrorType(error: GatewayError): string {
  if (error.code === "insufficient_user_quota") return "insufficient_user_quota";
  const type = messagesErrorType(error);
  return type === "overloaded_error" && error.status !== 529 ? "api_error" : type;
}

/** The JSON body of an error in the given shape, carrying the request id. */
export function errorBody(error: GatewayError, shape: ErrorShape, requestId: string): unknown {
  if (shape === "messages") {
    return {
      type: "error",
      error: { type: messagesErrorType(error), message: error.message, code: error.code },
      request_id: requestId,
    };
  }
  return {
    error: {
      message: error.message,
      type: openaiErrorType(error),
      param: error.param ?? null,
      code: error.code,
      request_id: requestId,
    },
  };
}

/** Renders an error as an answer in the given shape. */
export function errorAnswer(error: GatewayError, shape: ErrorShape, requestId: string): Answer {
  const headers: Record<string, string> = {};
  for (const name in error.headers) headers[name.toLowerCase()] = error.headers[name]!;
  headers["content-type"] = "application/json";
  headers["x-request-id"] = requestId;
  return {
    status: error.status,
    headers,
    body: JSON.stringify(errorBody(error, shape, requestId)),
  };
}

/** Wraps anything thrown that is not a GatewayError as a 500 `gateway_error`. */
export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError(
    500,
    "gateway_error",
    "tollgate failed to handle the request: this is a bug, please report it with the request id.",
    { cause: error },
  );
}

/**
 * The 503 of a request that cannot be admitted because the database is unavailable: no
 * key can be checked nor any hold taken, so nothing is relayed. Clients may retry.
 */
export function databaseUnavailable(cause: unknown): GatewayError {
  return new GatewayError(
    503,
    "database_unavailable",
    "tollgate cannot reach its database, so it cannot check keys or hold the cost of this " +
      "request; nothing was sent upstream. Retry in a moment; if it persists, the operator " +
      "should check that the database in [database] url is up.",
    { cause, headers: { "retry-after": "1" } },
  );
}

/**
 * A store's call, whose `DatabaseUnavailableError` becomes the 503 above; at once when the
 * call answered at once (a store's calls reject, never throw).
 */
export function unlessUnavailable<T>(call: Awaitable<T>): Awaitable<T> {
  return call instanceof Promise ? call.catch(rethrowUnavailable) : call;
}

function rethrowUnavailable(error: unknown): never {
  throw error instanceof DatabaseUnavailableError ? databaseUnavailable(error) : error;
}
