/**
 * The one error type of tollgate, and its rendering in an error shape: each protocol has
 * its own (protocols/<p>/), and the OpenAI shape here is every other path's (models, the
 * admin API, metrics, unknown paths).
 */

/** How an error's body looks to a client; decided by the path, not the channel. */
export interface ErrorShape {
  /** The JSON body of `error`, carrying the request id. */
  body(error: GatewayError, requestId: string): unknown;
}

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

/**
 * The `error.type` of an error, per design.md's catalogue: the messages protocol's, whose
 * names OpenAI's share (but for overload, `openaiErrorType`).
 */
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

/** The OpenAI shape: `{"error": {"message", "type", "param", "code", "request_id"}}`. */
export const OPENAI_SHAPE: ErrorShape = {
  body: (error, requestId) => ({
    error: {
      message: error.message,
      type: openaiErrorType(error),
      param: error.param ?? null,
      code: error.code,
      request_id: requestId,
    },
  }),
};

/** Renders an error as a response in the given shape. */
export function errorResponse(error: GatewayError, shape: ErrorShape, requestId: string): Response {
  const headers = new Headers(error.headers);
  headers.set("content-type", "application/json");
  headers.set("x-request-id", requestId);
  return new Response(JSON.stringify(shape.body(error, requestId)), {
    status: error.status,
    headers,
  });
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
