/**
 * The `Host` header field of RFC 9112 section 3.2: an HTTP/1.1 request without one, or with
 * one that is not a `host[:port]` (RFC 3986), is answered 400. The runtime's HTTP/1.1 server
 * refuses two Host fields itself but serves a request without one (its URL then names the
 * listening address) and takes any value into the request's URL (`Host: a/b` moves the path).
 *
 * HTTP/2 carries the host as `:authority`, and the runtime shows no Host header for it; a
 * request does not say which version it came in. Over TLS, where clients negotiate HTTP/2,
 * a request without Host is therefore served; on plain HTTP, where HTTP/2 comes only with
 * prior knowledge (h2c), it is refused. Requests made in-process (`app.request()` in tests)
 * have no peer and no Host, and are not checked.
 */
import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../errors.ts";
import { type GatewayEnv, peerAddress } from "./request_context.ts";

/**
 * `uri-host [":" port]`: an IP literal in brackets, or a reg-name / IPv4 address
 * (unreserved, percent-encoded and sub-delims characters), then digits. Empty is valid.
 */
const HOST =
  /^(?:\[[0-9A-Za-z:._~!$&'()*+,;=%-]+\]|(?:[0-9A-Za-z._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})*)(?::[0-9]*)?$/;

/** Refuses a request over a socket without a valid Host header (see above). */
export function hostHeader(): MiddlewareHandler<GatewayEnv> {
  return function hostHeader(c, next) {
    const host = c.req.header("host");
    if (host === undefined) {
      if (peerAddress(c) !== "" && c.req.url.startsWith("http:")) throw missingHost();
    } else if (!HOST.test(host)) {
      throw invalidHost(host);
    }
    return next();
  };
}

function missingHost(): GatewayError {
  return new GatewayError(
    400,
    "invalid_request",
    "Request has no Host header: HTTP/1.1 requires one (RFC 9112, section 3.2). Send Host with the gateway's host name and port, as HTTP clients do.",
  );
}

function invalidHost(host: string): GatewayError {
  return new GatewayError(
    400,
    "invalid_request",
    `Request's Host header ${
      JSON.stringify(host.slice(0, 100))
    } is not a host name or address with an optional port. Send Host as host[:port], e.g. "gateway.example.com:8080".`,
  );
}
