/**
 * One upstream exchange under tollgate's timeouts: `first_byte` until headers
 * (and, streaming, until the first event), `idle` between stream chunks, `total`
 * over everything. Failures come out as UpstreamFailure values the relay
 * classifies for failover.
 */
import type { Timeouts } from "../config/schema.ts";
import { createDeadlines, type RepeatedWait } from "./deadlines.ts";
import type { UpstreamResponse } from "./response.ts";
import type { ShutdownWatch } from "./shutdown_watch.ts";

/** How an upstream attempt failed. */
export type UpstreamFailureKind = "network" | "timeout" | "status" | "client_gone" | "shutdown";

/** A failed upstream attempt; `message` is safe to show, `detail` is for the log. */
export class UpstreamFailure extends Error {
  readonly kind: UpstreamFailureKind;
  readonly status?: number;
  readonly retryAfter?: string;
  /** The upstream's own error message and param, for relaying client-fault errors. */
  readonly upstreamMessage?: string;
  readonly upstreamParam?: string;

  constructor(
    kind: UpstreamFailureKind,
    message: string,
    extra: {
      status?: number;
      retryAfter?: string;
      upstreamMessage?: string;
      upstreamParam?: string;
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
  }
}

/** What ends an exchange from outside: the client leaving, and the gateway's shutdown deadline. */
export interface StopSignals {
  client: AbortSignal;
  /** Over when the shutdown grace period is. */
  shutdown?: ShutdownWatch;
}

/** Sends the request with the given signal: a POST to the channel, or the built-in echo. */
export type Send = (signal: AbortSignal) => Promise<UpstreamResponse>;

/** An upstream that answered 2xx: its response, and the deadlines still running. */
export interface UpstreamExchange {
  response: UpstreamResponse;
  /** Aborted when the exchange fails (timeout, client gone, abort); readers should watch it. */
  signal: AbortSignal;
  /** Awaits `promise` but fails with a timeout after `ms` of waiting. */
  within<T>(promise: Promise<T>, ms: number, what: string): Promise<T>;
  /**
   * The idle timeout of a stream's reads: started before each read and ended after it
   * (deadlines.ts: no timer of its own); on timeout it aborts `signal`, which the reader
   * turns into the failure.
   */
  idle: RepeatedWait;
  /** Aborts the upstream request (client gone, or output finished with an error). */
  abort(failure: UpstreamFailure): void;
  /** Stops the timers; call once the exchange is over. */
  finish(): void;
}

/** Sends one attempt; resolves once a 2xx response's headers arrived, else throws UpstreamFailure. */
export async function callUpstream(
  send: Send,
  timeouts: Timeouts,
  signals: StopSignals,
): Promise<UpstreamExchange> {
  const controller = new AbortController();
  const abort = (failure: UpstreamFailure) => {
    if (!controller.signal.aborted) controller.abort(failure);
  };
  const onClientGone = () => abort(new UpstreamFailure("client_gone", "The client disconnected."));
  const onShutdown = () =>
    abort(new UpstreamFailure("shutdown", "The gateway is shutting down and ended the request."));
  signals.client.addEventListener("abort", onClientGone, { once: true });
  const unwatchShutdown = signals.shutdown?.watch(onShutdown);
  const deadlines = createDeadlines(
    timeouts.total,
    `The upstream did not finish within ${timeouts.total} ms.`,
    (message) => abort(new UpstreamFailure("timeout", message)),
  );
  // One abort listener for every wait of the exchange (a few: headers, a body, the first
  // event); reads of a stream's later chunks fail through the exchange's own signal instead.
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), {
      once: true,
    });
  });
  aborted.catch(() => {});
  const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> => {
    if (controller.signal.aborted) return Promise.reject(controller.signal.reason);
    const wait = deadlines.wait(ms, `The upstream sent no ${what} within ${ms} ms.`);
    return Promise.race([promise, aborted]).finally(wait.end);
  };
  const idle = deadlines.repeated(
    timeouts.idle,
    `The upstream sent nothing for ${timeouts.idle} ms.`,
  );
  const finish = () => {
    deadlines.stop();
    signals.client.removeEventListener("abort", onClientGone);
    unwatchShutdown?.();
  };
  if (signals.client.aborted) onClientGone();
  if (signals.shutdown?.over) onShutdown();

  try {
    const response = await within(send(controller.signal), timeouts.first_byte, "response headers")
      .catch((error) => {
        throw asFailure(error, controller.signal);
      });
    if (response.status < 200 || response.status > 299) {
      const text = await within(response.text(), timeouts.idle, "error body").catch(() => "");
      throw statusFailure(response, text);
    }
    return { response, signal: controller.signal, within, idle, abort, finish };
  } catch (error) {
    const failure = asFailure(error, controller.signal);
    // Nothing more is wanted of this attempt: release its connection at once.
    abort(failure);
    finish();
    throw failure;
  }
}

function asFailure(error: unknown, signal: AbortSignal): UpstreamFailure {
  if (error instanceof UpstreamFailure) return error;
  if (signal.aborted && signal.reason instanceof UpstreamFailure) return signal.reason;
  return new UpstreamFailure("network", "The upstream could not be reached.", { cause: error });
}

function statusFailure(response: UpstreamResponse, text: string): UpstreamFailure {
  const { message, param } = upstreamErrorMessage(text);
  return new UpstreamFailure("status", `The upstream answered HTTP ${response.status}.`, {
    status: response.status,
    retryAfter: response.header("retry-after"),
    upstreamMessage: message,
    upstreamParam: param,
  });
}

/** The message of an OpenAI- or Anthropic-shaped error body, if it has one. */
export function upstreamErrorMessage(text: string): { message?: string; param?: string } {
  try {
    const body = JSON.parse(text);
    const error = body?.error;
    const message = typeof error?.message === "string"
      ? error.message
      : typeof body?.message === "string"
      ? body.message
      : undefined;
    const param = typeof error?.param === "string" ? error.param : undefined;
    return { message: message?.slice(0, 2000), param };
  } catch {
    return {};
  }
}
