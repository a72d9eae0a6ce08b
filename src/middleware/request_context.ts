/**
 * Each request's context: its id, error shape, config snapshot and record, made when it
 * arrives; and what every answer carries (`x-request-id`, an admitted request's
 * `x-ratelimit-*`), stamped when it leaves.
 */
import type { Principal } from "../auth/principal.ts";
import type { ConfigSnapshot } from "../config/store.ts";
import type { ErrorShape } from "../errors.ts";
import type { Answer } from "../http/answer.ts";
import type { IncomingRequest } from "../http/incoming.ts";
import { newRecord, type RequestRecord } from "../observability/record.ts";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a request carries from its arrival to its answer. */
export interface RequestContext {
  readonly request: IncomingRequest;
  readonly requestId: string;
  /** The error shape of this path: messages under /v1/messages, else OpenAI. */
  readonly shape: ErrorShape;
  /** The config this request started with; a reload mid-request does not change it. */
  readonly snapshot: ConfigSnapshot;
  /** What this request did, for the request log and the metrics. */
  readonly record: RequestRecord;
  /** The `x-ratelimit-*` headers of an admitted request of a limited key, for every answer. */
  limitHeaders?: Readonly<Record<string, string>>;
}

/** A route behind authentication: the answer to a request of the key's `principal`. */
export type KeyRoute = (context: RequestContext, principal: Principal) => Answer | Promise<Answer>;

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
  // In two halves of 24 bits: each a small integer, which prints in hex ~3x faster than
  // a time past 2^31 does (bench/README.md).
  const ms = Math.max(0, Math.floor(now));
  const high = Math.floor(ms / 0x1000000).toString(16).padStart(6, "0");
  const time = high + (ms % 0x1000000).toString(16).padStart(6, "0");
  return `req_${time}${uuid.slice(0, 8)}${uuid.slice(24)}`;
}

/** The context of a request that just arrived, at `now` (ms since the epoch). */
export function requestContext(
  request: IncomingRequest,
  snapshot: ConfigSnapshot,
  now: number,
): RequestContext {
  const requestId = requestIdFrom(request.headers.get("x-request-id"), now);
  return {
    request,
    requestId,
    shape: shapeOf(request.path),
    snapshot,
    record: newRecord({ requestId, time: now, method: request.method, path: request.path }),
  };
}

/** Stamps what every answer carries: `x-request-id` and any `x-ratelimit-*`. */
export function stampAnswer(context: RequestContext, answer: Answer): void {
  answer.headers["x-request-id"] = context.requestId;
  const { limitHeaders } = context;
  if (limitHeaders) Object.assign(answer.headers, limitHeaders);
}
