/**
 * Reads a client's JSON body under the size limit. The server reads it (http/incoming.ts),
 * refusing one over the limit once the limit is passed (never holding it whole); a body
 * cut short (shorter than its Content-Length, or its connection closed mid-way), badly
 * chunked, or not UTF-8 is the client's 400, not a gateway failure.
 */
import { GatewayError } from "../errors.ts";
import { BodyRefused, type IncomingRequest } from "../http/incoming.ts";
import type { Awaitable } from "../awaitable.ts";

/** A client body: the parsed JSON, its size in bytes, and the bytes as they came. */
export interface JsonBody {
  value: unknown;
  bytes: number;
  /** What a same-protocol relay forwards when nothing in it must change. */
  raw: Uint8Array;
}

/** Decodes a whole body, replacing what is not UTF-8 with U+FFFD: the runtime's fast path. */
const UTF8 = new TextDecoder();
/**
 * Decodes a whole body, refusing what is not UTF-8: several times slower (759 against 166
 * µs for a coding agent's 230 KB body, bench/README.md), so asked only of a body whose
 * fast decoding holds a U+FFFD, which valid UTF-8 may also spell.
 */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The parsed JSON body, at once when the body is all buffered; 413 past `maxBytes`, 400
 * `bad_request_body` for anything not JSON.
 */
export function readJsonBody(
  request: IncomingRequest,
  maxBytes: number,
): Awaitable<JsonBody> {
  let bytes: Awaitable<Uint8Array>;
  try {
    bytes = request.body(maxBytes);
  } catch (error) {
    throw refusal(error, maxBytes);
  }
  return bytes instanceof Promise
    ? bytes.then(parseJsonBody, (error) => {
      throw refusal(error, maxBytes);
    })
    : parseJsonBody(bytes);
}

function parseJsonBody(bytes: Uint8Array): JsonBody {
  let text = UTF8.decode(bytes);
  if (text.includes("\uFFFD")) {
    try {
      text = STRICT_UTF8.decode(bytes);
    } catch {
      throw badBody("it is not valid UTF-8");
    }
  }
  if (text.trim() === "") throw badBody("the body is empty");
  try {
    return { value: JSON.parse(text), bytes: bytes.byteLength, raw: bytes };
  } catch (error) {
    throw badBody(error instanceof SyntaxError ? error.message : "it does not parse");
  }
}

function refusal(error: unknown, maxBytes: number): unknown {
  return error instanceof BodyRefused ? bodyRefused(error, maxBytes) : error;
}

function bodyRefused(refused: BodyRefused, maxBytes: number): GatewayError {
  if (refused.fault === "too_large") return bodyTooLarge(maxBytes);
  if (refused.fault === "incomplete") return incomplete(refused);
  return new GatewayError(
    400,
    "bad_request_body",
    `Request body is not validly chunked: ${refused.message}. Send it again, or with a Content-Length.`,
  );
}

/** The 413 for a body over the limit. */
export function bodyTooLarge(maxBytes: number): GatewayError {
  return new GatewayError(
    413,
    "request_too_large",
    `Request body is too large: the limit is ${maxBytes} bytes. Shorten the conversation or ask the operator to raise server.max_body_bytes.`,
  );
}

function incomplete(cause: unknown): GatewayError {
  return new GatewayError(
    400,
    "bad_request_body",
    "Request body is incomplete: the connection ended before the whole body arrived " +
      "(shorter than its Content-Length, or closed mid-way). Send the whole body again.",
    { cause },
  );
}

function badBody(why: string): GatewayError {
  return new GatewayError(
    400,
    "bad_request_body",
    `Request body is not valid JSON: ${why}. Send a JSON object with Content-Type: application/json.`,
  );
}
