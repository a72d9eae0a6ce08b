/**
 * What the app answers a request with, and how an answer goes on the wire: a whole body
 * with its length in one write, or a stream whose writes each go out as one chunk
 * (RFC 9112 §7.1) as soon as they are made.
 */
import { FIELD_VALUE } from "../upstream/http1/fields.ts";
import { headAndBody } from "../upstream/http1/write_buffers.ts";

/** A streamed body: it writes through the sink until it ends. */
export interface AnswerStream {
  /**
   * Writes the body through `sink`, one write at a time (each awaited before the next);
   * resolves once it ended. The server ends the body after it, unless `sink.last` did.
   */
  pipe(sink: ByteSink): Promise<void>;
  /** The client went away (or a write failed): stop at once and let go of everything. */
  cancel(): void;
}

/** Where a stream writes: each write reaches the client as one chunk. */
export interface ByteSink {
  /** Rejects once the client is gone (the stream has been cancelled by then). */
  write(bytes: Uint8Array): Promise<void>;
  /**
   * Writes the stream's last bytes and the end of its body at once: one write, which wakes
   * the client once, where a write and the server's end of the body were two. Rejects as
   * `write` does; nothing is written after it.
   */
  last(bytes: Uint8Array): Promise<void>;
}

/** An answer: status, headers (lowercase names, ASCII values) and a whole or streamed body. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array | AnswerStream;
}

/** How the body after a head is delimited. */
export type AnswerFraming = { length: number } | "chunked" | "close";

const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Content Too Large",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
};

/** The status line and header fields of an answer, up to and with its blank line. */
export function answerHead(
  status: number,
  headers: Record<string, string>,
  framing: AnswerFraming,
  options: { date: string; close: boolean },
): string {
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? ""}\r\ndate: ${options.date}\r\n`;
  for (const name in headers) {
    const value = headers[name]!;
    // A value carried over from an upstream's head may hold octets that are not ASCII: left
    // out, as one that would end the line early, so that the head's length stays its size.
    if (FIELD_VALUE.test(value)) head += `${name}: ${value}\r\n`;
  }
  if (framing === "chunked") head += "transfer-encoding: chunked\r\n";
  else if (framing !== "close") head += `content-length: ${framing.length}\r\n`;
  if (options.close) head += "connection: close\r\n";
  return head + "\r\n";
}

const ENCODER = new TextEncoder();
const CRLF = 0x0d0a;

/** The last chunk of a chunked body (no trailers). */
export const LAST_CHUNK: Uint8Array = ENCODER.encode("0\r\n\r\n");

/**
 * `bytes` as one chunk, after `head` (an answer's, ASCII, for its first chunk), and with
 * `LAST_CHUNK` after it when it is the body's `last`. No bytes make no chunk: one of size
 * zero would end the body.
 */
export function chunk(bytes: Uint8Array, head = "", last = false): Uint8Array {
  if (bytes.byteLength === 0) return headAndBody(head, last ? LAST_CHUNK : bytes);
  const size = `${head}${bytes.byteLength.toString(16)}\r\n`;
  const end = size.length + bytes.byteLength + 2;
  const framed = new Uint8Array(end + (last ? LAST_CHUNK.byteLength : 0));
  ENCODER.encodeInto(size, framed);
  framed.set(bytes, size.length);
  new DataView(framed.buffer).setUint16(end - 2, CRLF);
  if (last) framed.set(LAST_CHUNK, end);
  return framed;
}

/** A JSON answer. */
export function jsonAnswer(value: unknown, status = 200): Answer {
  return { status, headers: { "content-type": "application/json" }, body: JSON.stringify(value) };
}
