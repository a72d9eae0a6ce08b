/**
 * Sends a request through the attempts of a route plan until one upstream
 * answers, failing over on anything that went wrong before a byte reached the
 * client. "Answered" means a whole JSON body, or a stream's first event, so a
 * stream that dies at once still fails over.
 */
import type { EntryProtocol, Timeouts } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { protocolOf } from "../protocols/index.ts";
import type { SseBatch } from "../protocols/sse.ts";
import { retryAfterMs } from "../routing/health.ts";
import type { Attempt, AttemptFailure, RoutePlan } from "../routing/router.ts";
import type { AlarmClock } from "../upstream/alarm_clock.ts";
import {
  callUpstream,
  type Send,
  type StopSignals,
  type UpstreamExchange,
  UpstreamFailure,
} from "../upstream/call.ts";
import type { UpstreamResponse, WholeAnswer } from "../upstream/response.ts";
import { readSseBatches } from "../upstream/sse.ts";

/** An upstream that answered: its exchange and what was read of it. */
export interface Served {
  attempt: Attempt;
  attempts: number;
  exchange: UpstreamExchange;
  /** Non-stream: the whole body. */
  body?: WholeAnswer;
  /** Stream: the iterator of event batches and its first batch (never empty). */
  stream?: { events: AsyncIterator<SseBatch>; first: SseBatch };
}

/** The result of failover: served, or the error for the client with what was tried. */
export type FailoverResult =
  | { ok: true; served: Served }
  | { ok: false; error: GatewayError; attempts: number; lastAttempt?: Attempt };

/**
 * Statuses that are the client's fault: relayed as they are, never retried elsewhere,
 * never counted against a channel. 414 and 431: the client's query and forwarded headers
 * go upstream, and a client could otherwise cool channels down with long ones.
 */
const CLIENT_FAULT = new Set([400, 404, 413, 414, 422, 431]);

/** Walks the plan's attempts until one is served or none is left. */
export async function sendWithFailover(options: {
  plan: RoutePlan;
  entry: EntryProtocol;
  stream: boolean;
  send: (attempt: Attempt) => Send;
  /** The protocol the attempt's upstream answers in. */
  upstreamOf: (attempt: Attempt) => EntryProtocol;
  timeoutsOf: (attempt: Attempt) => Timeouts;
  signals: StopSignals;
  /** The app's clock for the exchanges' deadlines. */
  clock: AlarmClock;
  onAttemptFailed?: (attempt: Attempt, failure: UpstreamFailure) => void;
}): Promise<FailoverResult> {
  let attempts = 0;
  let last: { attempt: Attempt; failure: UpstreamFailure } | undefined;
  let refused: { attempt: Attempt; error: GatewayError } | undefined;
  for (let attempt = options.plan.next(); attempt; attempt = options.plan.next()) {
    let send: Send;
    try {
      send = options.send(attempt);
    } catch (error) {
      // This channel's protocol cannot express the request (convert_request_failed):
      // not the channel's fault, and another channel may well serve it.
      if (!(error instanceof GatewayError)) throw error;
      refused = { attempt, error };
      continue;
    }
    attempts++;
    const timeouts = options.timeoutsOf(attempt);
    try {
      const { exchange, response } = await callUpstream(
        send,
        timeouts,
        options.signals,
        options.clock,
      );
      try {
        const upstream = options.upstreamOf(attempt);
        let served: Pick<Served, "body" | "stream">;
        if (options.stream) {
          served = { stream: await readStream(exchange, response, timeouts, upstream) };
        } else {
          served = { body: await readWhole(exchange, response, timeouts) };
        }
        options.plan.succeed(attempt);
        return { ok: true, served: { attempt, attempts, exchange, ...served } };
      } catch (error) {
        // The answer is not taken: its connection is closed rather than left open unread.
        exchange.abort(asFailure(error));
        exchange.finish();
        throw error;
      }
    } catch (error) {
      const failure = asFailure(error);
      options.onAttemptFailed?.(attempt, failure);
      last = { attempt, failure };
      const decision = classify(failure);
      if (decision === "stop") break;
      options.plan.fail(attempt, decision, retryAfterMs(failure.retryAfter, Date.now()));
    }
  }
  if (!last && refused) {
    return { ok: false, error: refused.error, attempts, lastAttempt: refused.attempt };
  }
  return {
    ok: false,
    error: finalError(last?.failure, options.entry),
    attempts,
    lastAttempt: last?.attempt,
  };
}

const DECODER = new TextDecoder();

/** A whole answer's body and its JSON. */
async function readWhole(
  exchange: UpstreamExchange,
  response: UpstreamResponse,
  timeouts: Timeouts,
): Promise<WholeAnswer> {
  const bytes = await exchange.within(response.bytes(), timeouts.idle, "response body");
  const text = DECODER.decode(bytes);
  try {
    return { bytes, text, json: JSON.parse(text) };
  } catch (cause) {
    throw new UpstreamFailure("network", "The upstream answered with a body that is not JSON.", {
      cause,
    });
  }
}

/** A stream's events and its first batch, once that came. */
async function readStream(
  exchange: UpstreamExchange,
  response: UpstreamResponse,
  timeouts: Timeouts,
  upstream: EntryProtocol,
): Promise<NonNullable<Served["stream"]>> {
  if (!response.body || !response.header("content-type")?.includes("text/event-stream")) {
    throw new UpstreamFailure("network", "The upstream did not answer with an event stream.");
  }
  // No signal: an aborted exchange already ends the body's reads (its connection closes,
  // the echo's stream errors), and a listener per stream would stay for all of it.
  const events = readSseBatches(response.body)[Symbol.asyncIterator]();
  const first = await exchange.within(firstEvents(events), timeouts.first_byte, "stream event");
  if (first.done) {
    throw new UpstreamFailure("network", "The upstream stream ended before any event.");
  }
  // Nothing reached the client yet: an error as the first event fails over like an HTTP error.
  const report = protocolOf(upstream).streamError(first.value.events[0]!);
  if (report) {
    throw new UpstreamFailure("status", "The upstream stream began with an error event.", {
      status: report.status,
      upstreamMessage: report.message,
    });
  }
  return { events, first: first.value };
}

/** The first batch that holds events: comments before them do not make a first byte. */
async function firstEvents(
  events: AsyncIterator<SseBatch>,
): Promise<IteratorResult<SseBatch>> {
  for (;;) {
    const step = await events.next();
    if (step.done || step.value.events.length > 0) return step;
  }
}

function asFailure(error: unknown): UpstreamFailure {
  return error instanceof UpstreamFailure
    ? error
    : new UpstreamFailure("network", "The upstream answer could not be read.", { cause: error });
}

function classify(failure: UpstreamFailure): AttemptFailure | "stop" {
  if (failure.kind === "client_gone" || failure.kind === "shutdown") return "stop";
  if (failure.kind !== "status") return "channel_failed";
  const status = failure.status ?? 502;
  if (CLIENT_FAULT.has(status)) return "stop";
  if (status === 401 || status === 403) return "key_rejected";
  if (status === 429) return "key_limited";
  if (status === 529 || (status === 503 && failure.retryAfter)) return "channel_overloaded";
  return "channel_failed";
}

/** The client's error after the last failure (or when there was nothing to try). */
function finalError(failure: UpstreamFailure | undefined, entry: EntryProtocol): GatewayError {
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
      CLIENT_FAULT_CODES[status] ?? "invalid_request",
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
    return protocolOf(entry).overloadedStatus === 529
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
  return new GatewayError(
    502,
    "bad_response_status_code",
    `The upstream answered HTTP ${status} on every attempt. Retry shortly.`,
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
