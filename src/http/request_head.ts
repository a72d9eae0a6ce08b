/**
 * The head of an HTTP/1.1 request as a client sends it to tollgate: its request line
 * and header fields (RFC 9112 §3, §5), and how its body is framed (§6). Read strictly:
 * a request that could be read two ways (both Content-Length and Transfer-Encoding,
 * two different lengths) is refused rather than guessed at.
 */
import { contentLength, keepsConnection, splitHead } from "../upstream/http1/fields.ts";

/** A parsed request line and header fields; names are lowercase, repeated fields joined. */
export interface RequestHead {
  method: string;
  /** The path, as sent (no percent-decoding), without the query. */
  path: string;
  /** The query with its `?`, or "". */
  search: string;
  /** HTTP/1.0 closes the connection after the answer unless it asks to keep it. */
  version: "1.0" | "1.1";
  headers: Map<string, string>;
}

/** How a request's body is delimited: none, a known length, or chunks. */
export type BodyFraming =
  | { kind: "length"; length: number }
  | { kind: "chunked" };

/**
 * A request tollgate cannot read: answered with `status` and the connection closed;
 * `path` when the head was read that far (the answer takes the path's error shape).
 */
export class BadRequest extends Error {
  constructor(readonly status: number, message: string, readonly path?: string) {
    super(message);
    this.name = "BadRequest";
  }
}

// method SP request-target SP HTTP-version; the method is a token (RFC 9110 §9.1).
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/(\d)\.(\d)$/;
const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/** Parses the head in `bytes[start, end)` (which ends with its blank line). */
export function parseRequestHead(bytes: Uint8Array, start: number, end: number): RequestHead {
  const { line: requestLine, headers } = splitHead(
    bytes,
    start,
    end,
    (field) => new BadRequest(400, `The header line "${field.slice(0, 80)}" is malformed.`),
  );
  const line = REQUEST_LINE.exec(requestLine);
  if (!line) {
    throw new BadRequest(400, `The request line "${requestLine.slice(0, 80)}" is not HTTP.`);
  }
  if (line[3] !== "1") {
    throw new BadRequest(505, `HTTP/${line[3]}.${line[4]} is not served here: use HTTP/1.1.`);
  }
  const { path, search } = splitTarget(line[2]!);
  return { method: line[1]!, path, search, version: line[4] === "0" ? "1.0" : "1.1", headers };
}

/** The path and query of a request target in origin form, or absolute form (from proxies). */
function splitTarget(target: string): { path: string; search: string } {
  const origin = target.startsWith("/") ? target : target.replace(ABSOLUTE_FORM, "") || "/";
  if (!origin.startsWith("/") && origin !== "*") {
    throw new BadRequest(400, `The request target "${target.slice(0, 80)}" is not a path.`);
  }
  const query = origin.indexOf("?");
  return query < 0 ? { path: origin, search: "" } : {
    path: origin.slice(0, query),
    search: query === origin.length - 1 ? "" : origin.slice(query),
  };
}

/** The framing of a request's body (RFC 9112 §6.3); a request without either has none. */
export function bodyFramingOf(head: RequestHead): BodyFraming {
  const coding = head.headers.get("transfer-encoding");
  const length = head.headers.get("content-length");
  if (coding !== undefined) {
    if (length !== undefined) {
      throw new BadRequest(
        400,
        "The request has both Content-Length and Transfer-Encoding.",
        head.path,
      );
    }
    if (!/^chunked$/i.test(coding.trim())) {
      throw new BadRequest(
        501,
        `Transfer-Encoding "${
          coding.slice(0, 40)
        }" is not supported: send chunked, or a Content-Length.`,
        head.path,
      );
    }
    return { kind: "chunked" };
  }
  if (length === undefined) return { kind: "length", length: 0 };
  const bytes = contentLength(length);
  if (bytes === undefined) {
    throw new BadRequest(
      400,
      `The Content-Length "${length.slice(0, 40)}" is not a length.`,
      head.path,
    );
  }
  return { kind: "length", length: bytes };
}

/** Whether the client wants the connection kept for another request after this one. */
export function wantsKeepAlive(head: RequestHead): boolean {
  return keepsConnection(head.headers, head.version);
}
