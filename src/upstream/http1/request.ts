/** The bytes of an HTTP/1.1 POST: its head and its UTF-8 body, written at once. */
import { FIELD_NAME, FIELD_VALUE } from "./fields.ts";

/** A ready upstream request. */
export interface Http1Request {
  /** Absolute http(s) URL. */
  url: string;
  /** Header fields by lowercase name; Host, Content-Length and User-Agent are added. */
  headers: Record<string, string>;
  /** JSON text, or bytes sent as they are. */
  body: string | Uint8Array;
}

const ENCODER = new TextEncoder();
const USER_AGENT = "tollgate";

/**
 * The request's bytes, to `target` (a path, or an absolute URL to a proxy) with `extra`
 * header lines; throws on a header that would break the head (a config mistake).
 */
export function encodeRequest(
  target: string,
  host: string,
  request: Http1Request,
  extra = "",
): Uint8Array {
  let head = `POST ${target} HTTP/1.1\r\nhost: ${host}\r\n${extra}`;
  for (const name in request.headers) {
    const value = request.headers[name]!;
    if (!FIELD_NAME.test(name) || !FIELD_VALUE.test(value)) {
      throw new TypeError(`The upstream header "${name.slice(0, 40)}" is not a valid header.`);
    }
    head += `${name}: ${value}\r\n`;
  }
  const body = typeof request.body === "string" ? ENCODER.encode(request.body) : request.body;
  head += `content-length: ${body.byteLength}\r\nuser-agent: ${USER_AGENT}\r\n\r\n`;
  // The head is ASCII: one byte a character.
  const bytes = new Uint8Array(head.length + body.byteLength);
  ENCODER.encodeInto(head, bytes);
  bytes.set(body, head.length);
  return bytes;
}
