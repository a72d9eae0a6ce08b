/**
 * One upstream exchange under tollgate's timeouts: `first_byte` until headers
 * (and, streaming, until the first event), `idle` between stream chunks, `total`
 * over everything. Failures come out as UpstreamFailure values the relay
 * classifies for failover.
 */
import type { Timeouts } from "../config/schema.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import { Deadlines, type RepeatedWait, type Wait } from "../clock/deadlines.ts";
import type { UpstreamResponse } from "./response.ts";
import type { ShutdownListener, ShutdownWatch } from "../clock/shutdown_watch.ts";
import { Stop, type StopSignal } from "../clock/stop_signal.ts";

/** How an upstream attempt failed. */
export type UpstreamFailureKind = "network" | "timeout" | "status" | "client_gone" | "shutdown";

/** A failed upstream attempt; `message` is safe to show, `detail` is for the log. */
export class UpstreamFailure extends Error {
  readonly kind: UpstreamFailureKind;
  readonly status?: number;
  readonly retryAfter?: string;
  /** The upstream's own error message, param and code, for relaying client-fault errors. */
  readonly upstreamMessage?: string;
  readonly upstreamParam?: string;
  readonly upstreamCode?: string;
  /**
   * The start of an error body that carries no message of a known shape (redacted), for
   * the attempt's reason; never shown to the client.
   */
  readonly upstreamText?: string;

  constructor(
    kind: UpstreamFailureKind,
    message: string,
    extra: {
      status?: number;
      retryAfter?: string;
      upstreamMessage?: string;
      upstreamParam?: string;
      upstreamCode?: string;
      upstreamText?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: extra.cause });
    this.name = "UpstreamFailure";
    this.kind = kind;
    this.status = extra.status;
    this.retryAfter = extra.retryAfter;
    this.upstreamMessage = extra.upstreamMessage;
    this.upstreamParam = extra.upstreamParam;
    this.upstreamCode = extra.upstreamCode;
    this.upstreamText = extra.upstreamText;
  }
}

/** What ends an exchange from outside: the client leaving, and the gateway's shutdown deadline. */
export interface StopSignals {
  client: StopSignal;
  /** Over when the shutdown grace period is. */
  shutdown?: ShutdownWatch;
}

/** Sends the request with the given signal: a POST to the channel, or the built-in echo. */
export type Send = (signal: StopSignal) => Promise<UpstreamResponse>;

/** An upstream exchange under way: its deadlines and what ends it. */
export interface UpstreamExchange {
  /** Aborted when the exchange fails (timeout, client gone, abort); readers should watch it. */
  signal: StopSignal;
  /** Awaits `promise` but fails with a timeout after `ms` of waiting (one wait at a time). */
  within<T>(promise: Promise<T>, ms: number, what: string): Promise<T>;
  /**
   * The idle timeout of a stream's reads: started before each read and ended after it
   * (clock/deadlines.ts: no timer of its own); on timeout it aborts `signal`, which the reader
   * turns into the failure.
   */
  idle: RepeatedWait;
  /**
   * A deadline beside the waits, ended by the caller: passed, it aborts the exchange with
   * a timeout (a stream's first content must come within `first_content`).
   */
  deadline(ms: number, what: string): Wait;
  /** Aborts the upstream request (client gone, or output finished with an error). */
  abort(failure: UpstreamFailure): void;
  /** Stops the deadlines and the watching; call once the exchange is over. */
  finish(): void;
}

/**
 * An upstream that answered 2xx: the exchange, and its response. Apart, so that a relay
 * holding the exchange for a long stream does not hold the response's head as well.
 */
export interface Answered {
  exchange: UpstreamExchange;
  response: UpstreamResponse;
}

/**
 * Sends one attempt; resolves once a 2xx response's headers arrived, else throws
 * UpstreamFailure, whose upstream text has the config's secrets redacted (`redact`). Its
 * deadlines ring on `clock`, the app's.
 */
export async function callUpstream(
  send: Send,
  timeouts: Timeouts,
  signals: StopSignals,
  clock: AlarmClock,
  redact: (text: string) => string = (text) => text,
): Promise<Answered> {
  const exchange = new Exchange(timeouts, signals, clock);
  try {
    // A client gone already (or a shutdown over) wants nothing sent upstream.
    if (exchange.signal.aborted) throw exchange.signal.reason;
    const response = await exchange.within(
      send(exchange.signal),
      timeouts.first_byte,
      "response headers",
    ).catch((error) => {
      throw asFailure(error, exchange.signal);
    });
    if (response.status < 200 || response.status > 299) {
      const text = await exchange.within(response.text(), timeouts.idle, "error body")
        .catch(() => "");
      throw statusFailure(response, redact(text));
    }
    return { exchange, response };
  } catch (error) {
    const failure = asFailure(error, exchange.signal);
    // Nothing more is wanted of this attempt: release its connection at once.
    exchange.abort(failure);
    exchange.finish();
    throw failure;
  }
}

const shutdownFailure = () =>
  new UpstreamFailure("shutdown", "The gateway is shutting down and ended the request.");
const describeTotal = (ms: number) => `The upstream did not finish within ${ms} ms.`;
const describeIdle = (ms: number) => `The upstream sent nothing for ${ms} ms.`;
const describeWait = (ms: number, what: string) => `The upstream sent no ${what} within ${ms} ms.`;

/**
 * One exchange's state in fields and methods rather than closures: a stream holds its
 * exchange as long as it runs, and thousands of streams may be open.
 */
class Exchange implements UpstreamExchange, ShutdownListener {
  readonly idle: RepeatedWait;
  readonly #stop = new Stop();
  readonly #deadlines: Deadlines;
  readonly #client: StopSignal;
  readonly #shutdown: ShutdownWatch | undefined;
  /** Rejects the wait under way, if any: an abort ends it at once, whatever it waits on. */
  #rejectWait: ((reason: unknown) => void) | undefined;

  constructor(timeouts: Timeouts, signals: StopSignals, clock: AlarmClock) {
    this.#deadlines = new Deadlines({
      clock,
      totalMs: timeouts.total,
      describeTotal,
      expired: (message) => this.abort(new UpstreamFailure("timeout", message)),
    });
    this.idle = this.#deadlines.repeated(timeouts.idle, "", describeIdle);
    this.#client = signals.client;
    // The exchange itself listens (handleEvent, shutdownOver): no closure to keep per request.
    this.#client.addEventListener("abort", this, { once: true });
    const { shutdown } = signals;
    this.#shutdown = shutdown;
    shutdown?.watch(this);
    if (this.#client.aborted) this.handleEvent();
    if (shutdown?.over) this.shutdownOver();
  }

  get signal(): StopSignal {
    return this.#stop;
  }

  /** The client's request signal aborted: the client went away. */
  handleEvent(): void {
    this.abort(new UpstreamFailure("client_gone", "The client disconnected."));
  }

  /** The shutdown's grace period is over. */
  shutdownOver(): void {
    this.abort(shutdownFailure());
  }

  within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
    const stop = this.#stop;
    if (stop.aborted) {
      // Not awaited any more: its own failure (the aborted connection's) must not go unhandled.
      promise.catch(() => {});
      return Promise.reject(stop.reason);
    }
    const wait = this.#deadlines.wait(ms, what, describeWait);
    return new Promise<T>((resolve, reject) => {
      const settled = () => {
        wait.end();
        if (this.#rejectWait === rejectNow) this.#rejectWait = undefined;
      };
      const rejectNow = (reason: unknown) => {
        settled();
        reject(reason);
      };
      this.#rejectWait = rejectNow;
      promise.then((value) => {
        settled();
        resolve(value);
      }, rejectNow);
    });
  }

  deadline(ms: number, what: string): Wait {
    return this.#deadlines.wait(ms, what, describeWait);
  }

  abort(failure: UpstreamFailure): void {
    if (this.#stop.aborted) return;
    this.#stop.abort(failure);
    this.#rejectWait?.(failure);
  }

  finish(): void {
    this.#deadlines.stop();
    this.#client.removeEventListener("abort", this);
    this.#shutdown?.unwatch(this);
  }
}

function asFailure(error: unknown, signal: StopSignal): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  if (signal.aborted && signal.reason instanceof UpstreamFailure) return signal.reason;
  return new UpstreamFailure("network", "The upstream could not be reached.", { cause: error });
}

/** Characters of an error body without a known shape that an attempt's reason keeps. */
const UPSTREAM_TEXT_CHARS = 300;

function statusFailure(response: UpstreamResponse, text: string): UpstreamFailure {
  const { message, param, code } = upstreamErrorMessage(text);
  const bare = text.trim();
  // Google answers a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID: the
  // channel key's fault (401), not the client's.
  const keyInvalid = response.status === 400 && text.includes('"API_KEY_INVALID"');
  return new UpstreamFailure("status", `The upstream answered HTTP ${response.status}.`, {
    status: keyInvalid ? 401 : response.status,
    retryAfter: response.header("retry-after"),
    upstreamMessage: message,
    upstreamParam: param,
    upstreamCode: code,
    upstreamText: message === undefined && bare ? bare.slice(0, UPSTREAM_TEXT_CHARS) : undefined,
  });
}

/** The message, param and code of an OpenAI- or Anthropic-shaped error body, if it has them. */
export function upstreamErrorMessage(
  text: string,
): { message?: string; param?: string; code?: string } {
  try {
    const body = JSON.parse(text);
    const error = body?.error;
    const message = typeof error?.message === "string"
      ? error.message
      : typeof body?.message === "string"
      ? body.message
      : undefined;
    const param = typeof error?.param === "string" ? error.param : undefined;
    const code = typeof error?.code === "string" ? error.code : undefined;
    return { message: message?.slice(0, 2000), param, code };
  } catch {
    return {};
  }
}
