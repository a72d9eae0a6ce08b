/**
 * Each request's variables (typed, set with `c.set`): its id, error shape, config snapshot
 * and record, set when it arrives; the key's principal once authenticated; and what every
 * answer carries (`x-request-id`, an admitted request's `x-ratelimit-*`), stamped when it
 * leaves. The middleware that sets them is the app's outermost: it also reports the request
 * once its answer is made. They are read with `c.get(name)`, not `c.var.name`: Hono's `c.var`
 * builds an object of every variable at each read. Hono's `requestId` middleware keeps other
 * ids than design.md's (`A-Za-z0-9._:-`, up to 128), and numbers none in time order: this one
 * does both.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Principal } from "../auth/principal.ts";
import type { ConfigSnapshot } from "../config/store.ts";
import { type ErrorShape, OPENAI_SHAPE } from "../errors.ts";
import { orderedId } from "../ids.ts";
import { newRecord, type RequestRecord } from "../observability/record.ts";
import { protocolOf } from "../protocols/index.ts";
import { googleAuthenticated, speaksGemini } from "./gemini_paths.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a request carries from its arrival to its answer. */
export interface GatewayVariables {
  readonly requestId: string;
  /** How this request's errors are written: the shape of its path's protocol. */
  readonly errorShape: ErrorShape;
  /** The config this request started with; a reload mid-request does not change it. */
  readonly snapshot: ConfigSnapshot;
  /** What this request did, for the request log and the metrics. */
  readonly record: RequestRecord;
  /**
   * Reports the request (request log, metrics) once it is over: when its answer is made,
   * or, for a stream (`record.streaming`), when the stream ends. Once; later calls do nothing.
   */
  readonly finished: () => void;
  /** The caller's key, once `authenticated` let the request through. */
  readonly principal: Principal;
  /** The `x-ratelimit-*` headers of an admitted request of a limited key, for every answer. */
  readonly limitHeaders?: Readonly<Record<string, string>>;
}

/** The Hono environment of tollgate's app: the runtime's connection info and the variables. */
export interface GatewayEnv {
  Bindings: { remoteAddr?: Deno.Addr } | undefined;
  Variables: GatewayVariables;
}

/**
 * The error shape for a path: the messages protocol owns everything under /messages, Gemini
 * its paths (api/gemini_paths.ts; `gemini` true for one of them).
 */
export function shapeOf(path: string, gemini = false): ErrorShape {
  if (gemini) return protocolOf("gemini").errorShape;
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

/** The TCP peer's address ("" when unknown, as in `app.request()` tests). */
export function peerAddress(c: Context<GatewayEnv>): string {
  const address = c.env?.remoteAddr;
  return address && "hostname" in address ? address.hostname : "";
}

/** The query of a request's URL with its `?`, or "". */
export function queryOf(c: Context<GatewayEnv>): string {
  const { url } = c.req;
  const query = url.indexOf("?");
  return query < 0 || query === url.length - 1 ? "" : url.slice(query);
}

/** What the context middleware is built from. */
export interface ContextOptions {
  config: { current(): ConfigSnapshot };
  now: () => number;
  /** Where a request is reported once it is over (see `GatewayVariables.finished`). */
  report(record: RequestRecord, snapshot: ConfigSnapshot): void;
  /** Told of each request as it arrives (telemetry notes its parent span); none if absent. */
  started?: (record: RequestRecord) => void;
}

/** Sets each request's variables, stamps its answer and reports it (a stream when it ends). */
export function requestContext(options: ContextOptions): MiddlewareHandler<GatewayEnv> {
  return async function requestContext(c, next) {
    const now = options.now();
    const request = c.req.raw;
    const path = c.req.path;
    const snapshot = options.config.current();
    const requestId = requestIdFrom(request.headers.get("x-request-id"), now);
    const record = newRecord({ requestId, time: now, method: request.method, path });
    options.started?.(record);
    let reported = false;
    c.set("requestId", requestId);
    const gemini = speaksGemini(path, googleAuthenticated(request), snapshot.config);
    c.set("errorShape", shapeOf(path, gemini));
    c.set("snapshot", snapshot);
    c.set("record", record);
    c.set("finished", () => {
      if (reported) return;
      reported = true;
      options.report(record, snapshot);
    });
    await next();
    stampResponse(c.res, requestId, c.get("limitHeaders"));
    record.status = c.res.status;
    if (record.outcome === undefined && c.res.status >= 400) record.outcome = "refused";
    if (!record.streaming) c.get("finished")();
  };
}

/** Stamps what every answer carries: `x-request-id` and any `x-ratelimit-*`. */
function stampResponse(
  response: Response,
  requestId: string,
  limitHeaders: Readonly<Record<string, string>> | undefined,
): void {
  const { headers } = response;
  headers.set("x-request-id", requestId);
  if (limitHeaders) { for (const name in limitHeaders) headers.set(name, limitHeaders[name]!); }
}
