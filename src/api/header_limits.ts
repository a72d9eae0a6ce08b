/**
 * `[server] max_headers` and `max_header_bytes`: a request with more header fields, or
 * larger ones, than the operator allows is refused 431 before anything reads them. The
 * runtime's server refuses far larger heads itself (a bare 400); these bounds are the
 * gateway's own, with a message that names them.
 */
import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../errors.ts";
import type { GatewayEnv } from "./request_context.ts";

/** Refuses a request over the header limits of its config. */
export function headerLimits(): MiddlewareHandler<GatewayEnv> {
  return function headerLimits(c, next) {
    const { max_headers, max_header_bytes } = c.get("snapshot").config.server;
    let count = 0;
    // Each field as it is on the wire: `name: value\r\n` (repeated ones joined by ", ").
    let bytes = 0;
    for (const [name, value] of c.req.raw.headers) {
      count++;
      bytes += name.length + value.length + 4;
    }
    if (count > max_headers) {
      throw tooLarge(
        `${count} header fields, over the limit of ${max_headers} ([server] max_headers)`,
      );
    }
    if (bytes > max_header_bytes) {
      throw tooLarge(
        `${bytes} bytes of header fields, over the limit of ${max_header_bytes} ([server] max_header_bytes)`,
      );
    }
    return next();
  };
}

function tooLarge(what: string): GatewayError {
  return new GatewayError(
    431,
    "request_too_large",
    `Request header fields too large: the request has ${what}. Send fewer or shorter headers.`,
    { messagesType: "request_too_large" },
  );
}
