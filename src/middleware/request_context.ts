/** First middleware: request id, error shape, config snapshot and the access log line. */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { ConfigSnapshot } from "../config/store.ts";
import type { ErrorShape } from "../errors.ts";
import type { Logger } from "../log.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The error shape for a path: the messages protocol owns everything under /messages. */
export function shapeOf(path: string): ErrorShape {
  return /\/messages(\/|$)/.test(path) ? "messages" : "openai";
}

/** Keeps a well-formed incoming `x-request-id`, else makes one. */
export function requestIdFrom(incoming: string | undefined): string {
  return incoming && REQUEST_ID.test(incoming)
    ? incoming
    : `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** Sets the per-request context and stamps `x-request-id` on every response. */
export function requestContext(options: {
  config: { current(): ConfigSnapshot };
  now: () => number;
  log: Logger;
}): MiddlewareHandler<AppEnv> {
  return async function requestContext(c, next) {
    const started = options.now();
    const requestId = requestIdFrom(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    c.set("shape", shapeOf(c.req.path));
    c.set("snapshot", options.config.current());
    await next();
    try {
      c.res.headers.set("x-request-id", requestId);
    } catch {
      // Immutable headers (a response built elsewhere): rebuild it around the same body.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("x-request-id", requestId);
    }
    options.log.info("request", {
      request_id: requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      key_id: c.get("principal")?.id,
      ms: options.now() - started,
    });
  };
}
