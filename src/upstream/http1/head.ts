/**
 * The head of an HTTP/1.1 response: its status line and header fields (RFC 9112 §4-5),
 * read as strictly as llhttp (Node's parser) reads it, so that a malformed answer is an
 * upstream failure, never a guess.
 */
import { keepsConnection, singleContentLength, splitHead } from "./fields.ts";

/** A parsed status line and header fields; names are lowercase, repeated fields joined. */
export interface ResponseHead {
  status: number;
  /** HTTP/1.0 closes the connection unless it says keep-alive. */
  version: "1.0" | "1.1";
  headers: Map<string, string>;
}

/** A response that does not parse as HTTP/1.1. */
export class MalformedResponse extends Error {
  constructor(why: string) {
    super(`The upstream's answer is not valid HTTP/1.1: ${why}.`);
    this.name = "MalformedResponse";
  }
}

const CR = 13;
const LF = 10;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-5][0-9][0-9])(?: [^\r\n]*)?$/;

/**
 * Where the head at the start of `bytes` ends (the index after its blank line), or -1
 * while it has not ended; `from` skips what an earlier search already looked at.
 */
export function headEnd(bytes: Uint8Array, from = 0): number {
  for (let i = Math.max(from, 3); i < bytes.length; i++) {
    if (
      bytes[i] === LF && bytes[i - 1] === CR && bytes[i - 2] === LF && bytes[i - 3] === CR
    ) {
      return i + 1;
    }
  }
  return -1;
}

/** Parses the head in `bytes[0, end)` (which ends with its blank line). */
export function parseResponseHead(bytes: Uint8Array, end: number): ResponseHead {
  const { line, headers } = splitHead(
    bytes,
    0,
    end,
    (field) => new MalformedResponse(`bad header line "${field.slice(0, 80)}"`),
  );
  const status = STATUS_LINE.exec(line);
  if (!status) throw new MalformedResponse(`bad status line "${line.slice(0, 80)}"`);
  return { status: Number(status[2]), version: status[1] === "0" ? "1.0" : "1.1", headers };
}

/** How a response's body is delimited (RFC 9112 §6.3). */
export type Framing =
  | { kind: "none" }
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  | { kind: "close" };

/**
 * The body framing of a response to a POST. Both a Transfer-Encoding and a Content-Length,
 * or a Content-Length that is not one number, are refused (RFC 9112 §6.3 allows a client
 * to, and llhttp does): readers that disagree on where a body ends are a response-splitting
 * primitive.
 */
export function framingOf(head: ResponseHead): Framing {
  if (head.status === 204 || head.status === 304 || head.status < 200) return { kind: "none" };
  const coding = head.headers.get("transfer-encoding");
  const length = head.headers.get("content-length");
  if (coding !== undefined) {
    if (length !== undefined) {
      throw new MalformedResponse("it has both a Transfer-Encoding and a Content-Length");
    }
    // chunked must be the last coding; anything else is read until the connection closes.
    return /(?:^|,)[ \t]*chunked[ \t]*$/i.test(coding) ? { kind: "chunked" } : { kind: "close" };
  }
  if (length === undefined) return { kind: "close" };
  const bytes = singleContentLength(length);
  if (bytes === undefined) {
    throw new MalformedResponse(`bad Content-Length "${length.slice(0, 40)}"`);
  }
  return { kind: "length", length: bytes };
}

/** Whether the connection can carry another request after this response. */
export function keepsAlive(head: ResponseHead, framing: Framing): boolean {
  return framing.kind !== "close" && keepsConnection(head.headers, head.version);
}
