/**
 * The attempts of one request (design.md "Failover"): each sent and read up to its commit
 * point; a failure judged (verdict.ts) and followed by the same attempt after a pause, the
 * source's next attempt, a model with a larger window, or the end; every attempt recorded.
 * One Attempts serves the request's answer and then, after a cut, its rescues, so that
 * `max_attempts` bounds them all together.
 */
import type { FailoverConfig, Timeouts } from "../config/schema.ts";
import { noRedaction } from "../config/redact.ts";
import { addressOf, attemptReason } from "./reason.ts";
import { attemptEnded, attemptSent } from "../observability/attempt_times.ts";
import { GatewayError } from "../errors.ts";
import type { Attempt, AttemptFailure } from "../routing/router.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import {
  callUpstream,
  type Send,
  type StopSignals,
  type UpstreamExchange,
  UpstreamFailure,
} from "../upstream/call.ts";
import type { UpstreamResponse } from "../upstream/response.ts";
import { type AttemptRecord, attemptRecord } from "../billing/attempt_record.ts";
import { finalError, judge } from "./verdict.ts";

/** Where attempts come from: the request's route plan, or a rescue's candidates. */
export interface AttemptSource {
  next(): Attempt | undefined;
  fail(attempt: Attempt, failure: AttemptFailure, retryAfterMs?: number): void;
  failOnce(attempt: Attempt): void;
  succeed(attempt: Attempt): void;
  release(attempt: Attempt): void;
}

/** What a request's attempts are made with. */
export interface AttemptsDeps {
  clock: AlarmClock;
  signals: StopSignals;
  failover: FailoverConfig;
  /** When the request's `total` is over, on `clock`. */
  deadline: number;
  /** The wall clock, for `Retry-After` dates. */
  now: () => number;
  /** Jitter of the pauses before retries. */
  random: () => number;
  timeoutsOf(attempt: Attempt): Timeouts;
  /** The attempt's upstream found the request too long for its model: the source moves on. */
  tooLong?(attempt: Attempt): Promise<void>;
  onFailed?(attempt: Attempt, failure: UpstreamFailure): void;
  /** The entry protocol's status for an overloaded upstream. */
  overloadedStatus: 503 | 529;
  /** Redacts the config's secrets from upstream text (config/redact.ts). */
  redact?: (text: string) => string;
}

/** An attempt read to its commit point, or the client's error once none is left. */
export type Tried<T> =
  | { ok: true; attempt: Attempt; exchange: UpstreamExchange; record: AttemptRecord; value: T }
  | { ok: false; error: GatewayError };

/** What a run sends and reads: an answer's attempts, or a rescue's. */
export interface AttemptRun<T> {
  /** The send of an attempt; throws a GatewayError when its channel cannot take the request. */
  send(attempt: Attempt): Send;
  read: ReadAttempt<T>;
  /**
   * Before each attempt: throws a GatewayError when its worst case cannot be held (a dearer
   * model than the hold covers, or a rescue, refused by the balance): failover stops there.
   */
  admit?(attempt: Attempt): Promise<void>;
  /**
   * A rescue: an upstream that refuses the continuation (say, a prefill it does not take)
   * is passed over for the next candidate, where a client's fault would end an answer.
   */
  rescue?: boolean;
}

/** An attempt whose upstream answered 2xx, to be read to its commit point. */
export interface Answered {
  attempt: Attempt;
  exchange: UpstreamExchange;
  response: UpstreamResponse;
  record: AttemptRecord;
  /** When it was sent (`performance.now()`), for its time to first content. */
  sentAt: number;
}

/** Reads an answered attempt to its commit point; throws UpstreamFailure (or a GatewayError). */
export type ReadAttempt<T> = (answered: Answered) => Promise<T>;

/** The attempts of one request, across its answer and its rescues. */
export class Attempts {
  /** Every attempt made, in order. */
  readonly records: AttemptRecord[] = [];
  readonly #deps: AttemptsDeps;
  #last: UpstreamFailure | undefined;

  constructor(deps: AttemptsDeps) {
    this.#deps = deps;
  }

  /** How many upstream calls were made. */
  get count(): number {
    return this.records.length;
  }

  /** Tries `source`'s attempts until one is read to its commit point. */
  async run<T>(source: AttemptSource, run: AttemptRun<T>): Promise<Tried<T>> {
    const deps = this.#deps;
    let refused: GatewayError | undefined;
    for (let attempt = source.next(); attempt; attempt = source.next()) {
      if (this.count >= deps.failover.max_attempts) break;
      try {
        await run.admit?.(attempt);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        source.release(attempt);
        return { ok: false, error: this.#last ? this.#error() : error };
      }
      const tried = await this.#tryAttempt(source, attempt, run);
      if (tried === "next") continue;
      if (tried instanceof GatewayError) {
        // This channel's protocol cannot express the request: another channel may.
        refused ??= tried;
        continue;
      }
      return tried;
    }
    if (!this.#last && refused) return { ok: false, error: refused };
    return { ok: false, error: this.#error() };
  }

  /** One attempt, with its retries: served, failed on to the next, or the end. */
  async #tryAttempt<T>(
    source: AttemptSource,
    attempt: Attempt,
    run: AttemptRun<T>,
  ): Promise<Tried<T> | "next" | GatewayError> {
    const deps = this.#deps;
    const history = { retries: 0, waited: false };
    for (;;) {
      let send: Send;
      try {
        send = run.send(attempt);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        return error;
      }
      const record = attemptRecord(attempt);
      this.records.push(record);
      attemptSent(record);
      const sentAt = performance.now();
      const leftMs = deps.deadline - deps.clock.now();
      const timeouts = deps.timeoutsOf(attempt);
      try {
        const answered = await callUpstream(
          send,
          { ...timeouts, total: Math.max(1, Math.min(timeouts.total, leftMs)) },
          deps.signals,
          deps.clock,
          deps.redact,
        );
        record.ttfbMs = Math.round(performance.now() - sentAt);
        const { exchange } = answered;
        try {
          const value = await run.read({
            attempt,
            exchange,
            response: answered.response,
            record,
            sentAt,
          });
          source.succeed(attempt);
          return { ok: true, attempt, exchange, record, value };
        } catch (error) {
          // The answer is not taken: its connection is closed rather than left open unread.
          exchange.abort(asFailure(error));
          exchange.finish();
          throw error;
        }
      } catch (error) {
        if (error instanceof GatewayError) throw error;
        const failure = asFailure(error);
        this.#last = failure;
        record.status = failure.status;
        record.reason = attemptReason(failure, addressOf(attempt), deps.redact ?? noRedaction);
        record.kind = failure.kind;
        attemptEnded(record);
        deps.onFailed?.(attempt, failure);
        const verdict = judge(
          failure,
          {
            ...history,
            leftMs: deps.deadline - deps.clock.now(),
            callsLeft: deps.failover.max_attempts - this.count,
          },
          deps.failover,
          deps.now(),
          deps.random,
        );
        const gone = failure.kind === "client_gone" || failure.kind === "shutdown";
        if (verdict.kind === "stop" && !(run.rescue && !gone)) {
          source.release(attempt);
          return { ok: false, error: this.#error() };
        }
        if (verdict.kind === "stop" || (verdict.kind === "longer" && run.rescue)) {
          // Refused as a continuation: no fault of the channel's for other requests.
          source.release(attempt);
          return "next";
        }
        if (verdict.kind === "longer") {
          source.release(attempt);
          await deps.tooLong?.(attempt);
          return "next";
        }
        if (verdict.kind === "next") {
          source.fail(attempt, verdict.failure, verdict.retryAfterMs);
          return "next";
        }
        // A Retry-After waited out is the upstream's own pace, not a failure of the channel.
        if (failure.retryAfter === undefined) {
          source.failOnce(attempt);
          history.retries++;
        } else history.waited = true;
        try {
          await deps.clock.sleep(verdict.pauseMs, deps.signals.client);
        } catch {
          source.release(attempt);
          this.#last = new UpstreamFailure("client_gone", "The client disconnected.");
          return { ok: false, error: this.#error() };
        }
      }
    }
  }

  /** The client's error for the last failure. */
  #error(): GatewayError {
    return finalError(this.#last, this.#deps.overloadedStatus);
  }
}

function asFailure(error: unknown): UpstreamFailure {
  return error instanceof UpstreamFailure
    ? error
    : new UpstreamFailure("network", "The upstream answer could not be read.", { cause: error });
}
