/**
 * What a failed upstream attempt leads to (design.md "Failover"): the same attempt
 * again after a pause, the plan's next attempt, the next model of the chain (a request
 * too long for this one), or an end (the client's own fault, the client gone, the
 * gateway shutting down); and the client's error once nothing is left to try.
 */
import type { FailoverConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { AttemptFailure } from "../routing/router.ts";
import { retryAfterMs } from "../routing/health.ts";
import type { UpstreamFailure } from "../upstream/call.ts";

/**
 * Statuses that are the client's fault: relayed as they are, never retried elsewhere,
 * never counted against a channel. 414 and 431: the client's query and forwarded headers
 * go upstream, and a client could otherwise cool channels down with long ones.
 */
const CLIENT_FAULT = new Set([400, 404, 413, 414, 422, 431]);

/** The pause before a retry after a 5xx, a reset or a timeout: jittered, never a tight loop. */
const RETRY_PAUSE_MS = { min: 250, max: 1_000 };

/** What to do after a failed attempt. */
export type Verdict =
  /** Send the same attempt again after `pauseMs` (a retry, or a short `Retry-After`). */
  | { kind: "again"; pauseMs: number }
  /** Report the failure to the plan and take its next attempt. */
  | { kind: "next"; failure: AttemptFailure; retryAfterMs?: number }
  /** The request is too long for this model: go on to a fallback with a larger window. */
  | { kind: "longer" }
  /** Nothing more is tried: the failure is the client's answer. */
  | { kind: "stop" };

/** What the attempt has had so far, which bounds what it may have again. */
export interface AttemptHistory {
  /** Retries of this attempt's channel made already. */
  retries: number;
  /** Whether a `Retry-After` of this attempt was waited out already. */
  waited: boolean;
  /** Milliseconds left of the request's `total`. */
  leftMs: number;
  /** Upstream calls left of the request's `max_attempts`. */
  callsLeft: number;
}

/** The verdict on `failure` (`now` reads `Retry-After` dates; `random` jitters the pause). */
export function judge(
  failure: UpstreamFailure,
  history: AttemptHistory,
  failover: FailoverConfig,
  now: number,
  random: () => number,
): Verdict {
  if (failure.kind === "client_gone" || failure.kind === "shutdown") return { kind: "stop" };
  const status = failure.status;
  if (failure.kind === "status" && status !== undefined) {
    if (status === 400 && isContextLength(failure)) return { kind: "longer" };
    if (CLIENT_FAULT.has(status)) return { kind: "stop" };
    if (status === 401 || status === 403) return { kind: "next", failure: "key_rejected" };
    const wait = retryAfterMs(failure.retryAfter, now);
    if (status === 429 || (wait !== undefined && (status === 503 || status === 529))) {
      if (
        wait !== undefined && !history.waited && wait <= failover.retry_after_max_ms &&
        wait < history.leftMs && history.callsLeft > 0
      ) return { kind: "again", pauseMs: wait };
      return {
        kind: "next",
        failure: status === 429 ? "key_limited" : "channel_overloaded",
        retryAfterMs: wait,
      };
    }
  }
  // A 5xx, a reset, a broken stream or a timeout: the channel may answer a second time.
  const pauseMs = RETRY_PAUSE_MS.min + random() * (RETRY_PAUSE_MS.max - RETRY_PAUSE_MS.min);
  if (history.retries < failover.retries && pauseMs < history.leftMs && history.callsLeft > 0) {
    return { kind: "again", pauseMs };
  }
  return { kind: "next", failure: status === 529 ? "channel_overloaded" : "channel_failed" };
}

/** Whether an upstream's 400 says the request is longer than the model's context window. */
export function isContextLength(failure: UpstreamFailure): boolean {
  if (failure.upstreamCode === "context_length_exceeded") return true;
  return CONTEXT_LENGTH.test(failure.upstreamMessage ?? "");
}

/** How providers word a request over the context window (OpenAI, Anthropic, vLLM, Gemini, ...). */
const CONTEXT_LENGTH =
  /context length|context window|prompt is too long|maximum context|too many tokens|exceeds the max(imum)? (input|context|number of tokens)/i;

/** The client's error after the last failure (or when there was nothing to try). */
export function finalError(
  failure: UpstreamFailure | undefined,
  overloadedStatus: 503 | 529,
): GatewayError {
  if (!failure) {
    return new GatewayError(
      503,
      "channel:no_available_key",
      "No usable channel key is left for this model. Retry later or ask the operator to check the channels.",
    );
  }
  if (failure.kind === "client_gone") {
    return new GatewayError(499, "client_closed_request", failure.message);
  }
  if (failure.kind === "shutdown") return shuttingDown();
  if (failure.kind === "timeout") {
    return new GatewayError(
      504,
      "upstream_timeout",
      `The upstream timed out: ${failure.message} Retry, perhaps with a smaller request.`,
      { cause: failure },
    );
  }
  if (failure.kind === "network") {
    return new GatewayError(
      502,
      "upstream_error",
      `The upstream failed: ${failure.message} Retry shortly.`,
      { cause: failure },
    );
  }
  const status = failure.status ?? 502;
  if (CLIENT_FAULT.has(status)) {
    return new GatewayError(
      status,
      status === 400 && isContextLength(failure)
        ? "context_length_exceeded"
        : CLIENT_FAULT_CODES[status] ?? "invalid_request",
      failure.upstreamMessage ?? `The upstream rejected the request with HTTP ${status}.`,
      {
        param: failure.upstreamParam,
        messagesType: status === 422 || status === 414 || status === 431
          ? "invalid_request_error"
          : undefined,
        cause: failure,
      },
    );
  }
  if (status === 401 || status === 403) {
    return new GatewayError(
      503,
      "channel:no_available_key",
      "Every channel key for this model was rejected by its upstream. Ask the operator to fix the channel keys.",
      { cause: failure },
    );
  }
  const retryAfter = failure.retryAfter ? { "retry-after": failure.retryAfter } : undefined;
  if (status === 429) {
    return new GatewayError(
      429,
      "rate_limit_exceeded",
      `The upstream is rate limiting this model on every channel key. Retry ${
        failure.retryAfter ? `in ${failure.retryAfter} s` : "after a back-off"
      }.`,
      { headers: retryAfter, cause: failure },
    );
  }
  if (status === 529) {
    return overloadedStatus === 529
      ? new GatewayError(
        529,
        "overloaded_error",
        "The upstream is overloaded. Retry after a short back-off.",
        { headers: retryAfter, cause: failure },
      )
      : new GatewayError(
        503,
        "channel:no_available_key",
        "The upstream is overloaded. Retry after a short back-off.",
        { headers: retryAfter, cause: failure },
      );
  }
  // An HTTP status, or an error event a stream began with (its message says which).
  return new GatewayError(
    502,
    "bad_response_status_code",
    `${failure.message} It failed so on every attempt. Retry shortly.`,
    { headers: retryAfter, cause: failure },
  );
}

const CLIENT_FAULT_CODES: Record<number, string> = {
  400: "invalid_request",
  404: "not_found",
  413: "request_too_large",
  422: "invalid_request",
};

/** The error of a request the gateway ended because it is shutting down. */
export function shuttingDown(): GatewayError {
  return new GatewayError(
    503,
    "shutting_down",
    "The gateway is shutting down and ended this request. Retry: another instance, or this one after its restart, will serve it.",
    { messagesType: "overloaded_error" },
  );
}
