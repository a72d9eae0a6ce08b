/** The bytes of an HTTP/1.1 POST: its head and its UTF-8 body, written at once. */
import { FIELD_NAME, FIELD_VALUE } from "./fields.ts";

/** A ready upstream request. */
export interface Http1Request {
  /** Absolute http(s) URL. */
  url: string;
  /**
   * Header fields by lowercase name; Host, Content-Length and User-Agent are added. The
   * same object for every request alike, never changed once posted: the client keeps
   * its encoded lines by it (headerLines).
   */
  headers: Readonly<Record<string, string>>;
  /** This request's own fields beside `headers` (the client's forwarded ones), if any. */
  own?: Readonly<Record<string, string>>;
  /** JSON text, or bytes sent as they are. */
  body: string | Uint8Array;
}

const ENCODER = new TextEncoder();
const USER_AGENT = "tollgate";

/**
 * The head lines of `headers`, each ending with CRLF; throws on a header that would
 * break the head (a config mistake).
 */
export function headerLines(headers: Readonly<Record<string, string>>): string {
  let lines = "";
  for (const name in headers) {
    const value = headers[name]!;
    if (!FIELD_NAME.test(name) || !FIELD_VALUE.test(value)) {
      throw new TypeError(`The upstream header "${name.slice(0, 40)}" is not a valid header.`);
    }
    lines += `${name}: ${value}\r\n`;
  }
  return lines;
}

/**
 * The request's bytes, head and body in one array for one write, to `target` (a path, or
 * an absolute URL to a proxy) with `extra` header lines and `lines`, its `headers` encoded
 * (headerLines).
 */
export function encodeRequest(
  target: string,
  host: string,
  lines: string,
  request: Http1Request,
  extra = "",
): Uint8Array {
  const own = request.own ? headerLines(request.own) : "";
  const body = typeof request.body === "string" ? ENCODER.encode(request.body) : request.body;
  const head = `POST ${target} HTTP/1.1\r\nhost: ${host}\r\n${extra}${lines}${own}` +
    `content-length: ${body.byteLength}\r\nuser-agent: ${USER_AGENT}\r\n\r\n`;
  // The head is ASCII (our own text and checked fields): its length is its size.
  const bytes = new Uint8Array(head.length + body.byteLength);
  ENCODER.encodeInto(head, bytes);
  bytes.set(body, head.length);
  return bytes;
}
