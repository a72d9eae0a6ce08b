/** First middleware: request id, error shape, config snapshot and the request's record. */
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { ConfigSnapshot } from "../config/store.ts";
import type { ErrorShape } from "../errors.ts";
import type { Observer } from "../observability/observer.ts";
import { newRecord } from "../observability/record.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The error shape for a path: the messages protocol owns everything under /messages. */
export function shapeOf(path: string): ErrorShape {
  return /\/messages(\/|$)/.test(path) ? "messages" : "openai";
}

/** Keeps a well-formed incoming `x-request-id`, else makes one at `now` (ms since the epoch). */
export function requestIdFrom(incoming: string | undefined, now: number): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : newRequestId(now);
}

/**
 * `req_`, the time in 12 hex digits, then 20 random ones: later ids sort later, so the
 * ledger's index of request ids grows at its end, and a transaction of settlements
 * writes one page of it instead of one page per row (bench/README.md).
 */
export function newRequestId(now: number): string {
  // A UUID's first 8 and last 12 hex digits are random (its version and variant sit between).
  const uuid = crypto.randomUUID();
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, "0");
  return `req_${time}${uuid.slice(0, 8)}${uuid.slice(24)}`;
}

/**
 * Sets the per-request context, stamps `x-request-id` (and an admitted request's
 * `x-ratelimit-*`) on every response, and reports
 * the request when it is over (a stream reports itself when it ends).
 */
export function requestContext(options: {
  config: { current(): ConfigSnapshot };
  now: () => number;
  observer: Observer;
}): MiddlewareHandler<AppEnv> {
  return async function requestContext(c, next) {
    const time = options.now();
    const requestId = requestIdFrom(c.req.header("x-request-id"), time);
    const snapshot = options.config.current();
    const record = newRecord({
      requestId,
      time,
      method: c.req.method,
      path: c.req.path,
    });
    c.set("requestId", requestId);
    c.set("shape", shapeOf(c.req.path));
    c.set("snapshot", snapshot);
    c.set("record", record);
    await next();
    // Rate-limit headers go on every answer after admission, errors included; an answer
    // built with answerHeaders() has them already (set one by one here, each is checked).
    if (!c.get("stamped")) {
      const limitHeaders = c.get("limitHeaders");
      try {
        stamp(c.res.headers, requestId, limitHeaders);
      } catch {
        // Immutable headers (a response built elsewhere): rebuild it around the same body.
        c.res = new Response(c.res.body, c.res);
        stamp(c.res.headers, requestId, limitHeaders);
      }
    }
    record.status = c.res.status;
    if (record.outcome === undefined && c.res.status >= 400) record.outcome = "refused";
    if (!record.streaming) options.observer.finished(record, snapshot.config.server);
  };
}

/** `headers` with what every answer carries: `x-request-id` and any `x-ratelimit-*`. */
export function answerHeaders(
  c: Context<AppEnv>,
  headers: Record<string, string>,
): Record<string, string> {
  c.set("stamped", true);
  headers["x-request-id"] = c.get("requestId");
  const limitHeaders = c.get("limitHeaders");
  if (limitHeaders) Object.assign(headers, limitHeaders);
  return headers;
}

function stamp(
  headers: Headers,
  requestId: string,
  limitHeaders: Readonly<Record<string, string>> | undefined,
): void {
  headers.set("x-request-id", requestId);
  if (!limitHeaders) return;
  for (const name in limitHeaders) headers.set(name, limitHeaders[name]!);
}
