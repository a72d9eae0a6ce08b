/**
 * Each request's context: its id, error shape, config snapshot and record, made when it
 * arrives; and what every answer carries (`x-request-id`, an admitted request's
 * `x-ratelimit-*`), stamped when it leaves. The middleware that makes it is the app's
 * outermost: it also reports the request once its answer is made.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Principal } from "../auth/principal.ts";
import type { ConfigSnapshot } from "../config/store.ts";
import { type ErrorShape, OPENAI_SHAPE } from "../errors.ts";
import { protocolOf } from "../protocols/index.ts";
import { orderedId } from "../ids.ts";
import { newRecord, type RequestRecord } from "../observability/record.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a request carries from its arrival to its answer. */
export interface RequestContext {
  /** The client's request as the runtime's server handed it over. */
  readonly request: Request;
  /**
   * Its header fields by lowercase name (repeated ones joined by ", "), read once: a
   * request asks for a dozen, and a plain map answers each without a call into the runtime.
   */
  readonly headers: ReadonlyMap<string, string>;
  /** The path as sent, without the query. */
  readonly path: string;
  /** The query with its `?`, or "". */
  readonly search: string;
  /** The TCP peer's address ("" when unknown, as in `app.request()` tests). */
  readonly remoteAddr: string;
  readonly requestId: string;
  /** The error shape of this path: messages under /v1/messages, else OpenAI. */
  readonly shape: ErrorShape;
  /** The config this request started with; a reload mid-request does not change it. */
  readonly snapshot: ConfigSnapshot;
  /** What this request did, for the request log and the metrics. */
  readonly record: RequestRecord;
  /** The `x-ratelimit-*` headers of an admitted request of a limited key, for every answer. */
  limitHeaders?: Readonly<Record<string, string>>;
  /**
   * Reports the request (request log, metrics) once it is over: when its answer is made,
   * or, for a stream (`record.streaming`), when the stream ends. Once; later calls do nothing.
   */
  readonly finished: () => void;
}

/** The Hono environment of tollgate's app: the runtime's connection info and the context. */
export interface GatewayEnv {
  Bindings: { remoteAddr?: Deno.Addr } | undefined;
  Variables: { context: RequestContext };
}

/** A route behind authentication: the response to a request of the key's `principal`. */
export type KeyRoute = (
  context: RequestContext,
  principal: Principal,
) => Response | Promise<Response>;

/** The error shape for a path: the messages protocol owns everything under /messages. */
export function shapeOf(path: string): ErrorShape {
  return /\/messages(\/|$)/.test(path) ? protocolOf("messages").errorShape : OPENAI_SHAPE;
}

/** Keeps a well-formed incoming `x-request-id`, else makes one at `now` (ms since the epoch). */
export function requestIdFrom(incoming: string | null | undefined, now: number): string {
  return incoming && REQUEST_ID.test(incoming) ? incoming : newRequestId(now);
}

/**
 * `req_`, the time in 12 hex digits, then 20 random ones: later ids sort later, so the
 * ledger's index of request ids grows at its end.
 */
export function newRequestId(now: number): string {
  return orderedId("req_", now);
}

/** What the context middleware is built from. */
export interface ContextOptions {
  config: { current(): ConfigSnapshot };
  now: () => number;
  /** Where a request is reported once it is over (see `RequestContext.finished`). */
  report(context: RequestContext): void;
}

/** Makes each request's context, stamps its answer and reports it (a stream when it ends). */
export function requestContext(options: ContextOptions): MiddlewareHandler<GatewayEnv> {
  return async function requestContext(c, next) {
    const context = contextOf(c, options.config.current(), options.now(), options.report);
    c.set("context", context);
    await next();
    stampResponse(context, c.res);
    const { record } = context;
    record.status = c.res.status;
    if (record.outcome === undefined && c.res.status >= 400) record.outcome = "refused";
    if (!record.streaming) context.finished();
  };
}

/** The context of a request that just arrived, at `now` (ms since the epoch). */
function contextOf(
  c: Context<GatewayEnv>,
  snapshot: ConfigSnapshot,
  now: number,
  report: (context: RequestContext) => void,
): RequestContext {
  const request = c.req.raw;
  const url = request.url;
  const query = url.indexOf("?");
  const headers = new Map<string, string>();
  request.headers.forEach((value, name) => headers.set(name, value));
  const requestId = requestIdFrom(headers.get("x-request-id"), now);
  const path = c.req.path;
  const address = c.env?.remoteAddr;
  let reported = false;
  const context: RequestContext = {
    request,
    headers,
    path,
    search: query < 0 || query === url.length - 1 ? "" : url.slice(query),
    remoteAddr: address && "hostname" in address ? address.hostname : "",
    requestId,
    shape: shapeOf(path),
    snapshot,
    record: newRecord({ requestId, time: now, method: request.method, path }),
    finished() {
      if (reported) return;
      reported = true;
      report(context);
    },
  };
  return context;
}

/** Stamps what every answer carries: `x-request-id` and any `x-ratelimit-*`. */
function stampResponse(context: RequestContext, response: Response): void {
  const { headers } = response;
  headers.set("x-request-id", context.requestId);
  const { limitHeaders } = context;
  if (limitHeaders) { for (const name in limitHeaders) headers.set(name, limitHeaders[name]!); }
}
