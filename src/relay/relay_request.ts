/**
 * One admitted request as its relay carries it: what its attempts, its answer (whole or
 * streamed), its rescues and its settlement share. Built by the relay route once the
 * request is held (api/relay.ts).
 */
import type { Hold } from "../billing/accounting.ts";
import { type Config, DEFAULT_FIRST_CONTENT_MS, type Timeouts } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { RequestRecord } from "../observability/record.ts";
import type { Protocol } from "../protocols/index.ts";
import type { EntryRequest } from "../protocols/types.ts";
import type { Attempt, RoutePlan } from "../routing/router.ts";
import type { StoredTurn } from "../stored/stored_responses.ts";
import type { Translator } from "../translate/translator.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import type { Send } from "../upstream/call.ts";
import { answersIn, upstreamProtocol } from "../routing/transport.ts";
import { Attempts, type AttemptsDeps } from "./attempts.ts";
import type { ShutdownWatch } from "../clock/shutdown_watch.ts";
import type { StopSignal } from "../clock/stop_signal.ts";
import { redactorOf } from "../config/redact.ts";
import type { Settlement } from "./settle.ts";

/** An admitted, held request on its way upstream. */
export interface RelayRequest {
  /** The client's protocol. */
  entry: Protocol;
  request: EntryRequest;
  config: Config;
  requestId: string;
  record: RequestRecord;
  plan: RoutePlan;
  attempts: Attempts;
  translator: Translator;
  settlement: Settlement;
  /** The request's hold, grown before a dearer attempt (`coverAttempt`). */
  hold: Hold;
  /** The request's input tokens as the hold counts them (generously, from its size). */
  holdInputTokens: number;
  /** The stored-responses turn of a responses request. */
  turn?: StoredTurn;
  clock: AlarmClock;
  log: Logger;
  metrics: Metrics;
  /** Sends the request to an attempt's upstream: the client's body, or `body` (a rescue's). */
  send(attempt: Attempt, body?: Record<string, unknown>): Send;
}

/** The timeouts of an attempt: the config's, its channel's overrides, `first_content` resolved. */
export function timeoutsOf(
  config: Config,
  attempt: Attempt,
): Timeouts & { first_content: number } {
  const timeouts = { ...config.timeouts, ...attempt.channel.timeouts };
  // A model that reasons may think in silence: by default it has the whole request's time.
  const reasoning = config.models[attempt.model]?.reasoning === true;
  const firstContent = timeouts.first_content ??
    (reasoning ? timeouts.total : DEFAULT_FIRST_CONTENT_MS);
  return { ...timeouts, first_content: firstContent };
}

/**
 * A request's attempts under its config (failover, each attempt's timeouts, `total` from
 * now), stopped by the client going away or the shutdown; `more` adds what only an answer
 * has (a move on when too long, the report of a failure).
 */
export function requestAttempts(
  deps: {
    clock: AlarmClock;
    shutdown?: ShutdownWatch;
    now: () => number;
    random: () => number;
  },
  config: Config,
  signal: StopSignal,
  overloadedStatus: 503 | 529,
  more: Pick<AttemptsDeps, "tooLong" | "onFailed"> = {},
): Attempts {
  return new Attempts({
    clock: deps.clock,
    signals: { client: signal, shutdown: deps.shutdown },
    failover: config.failover,
    deadline: deps.clock.now() + config.timeouts.total,
    now: deps.now,
    random: deps.random,
    timeoutsOf: (attempt) => timeoutsOf(config, attempt),
    overloadedStatus,
    redact: redactorOf(config),
    ...more,
  });
}

/** Reports a failed attempt: the channel's failure metric and a warning in the log. */
export function failureReport(
  deps: { metrics: Metrics; log: Logger },
  requestId: string,
): NonNullable<AttemptsDeps["onFailed"]> {
  return (attempt, failure) => {
    deps.metrics.attemptFailed(attempt.channel.name, failure.kind, failure.message);
    deps.log.warn("upstream attempt failed", {
      request_id: requestId,
      channel: attempt.channel.name,
      model: attempt.model,
      kind: failure.kind,
      status: failure.status,
      message: failure.message,
    });
  };
}

/** The protocol an attempt's upstream answers `relay`'s request in. */
export function upstreamOf(relay: Pick<RelayRequest, "entry">, attempt: Attempt): Protocol {
  return answersIn(attempt.channel, relay.entry);
}

/** Whether a channel continues an answer given as a trailing assistant turn (a rescue). */
export function takesPrefill(config: Config, attempt: Pick<Attempt, "channel" | "model">) {
  const { channel } = attempt;
  if (upstreamProtocol(channel)?.takesPrefill === false) return false;
  return attempt.channel.prefill ?? config.models[attempt.model]?.prefill ?? false;
}

/** The headers naming what served an answer committed before its head went out. */
export function servedHeaders(relay: RelayRequest, attempt: Attempt): Record<string, string> {
  return {
    "x-tollgate-model": attempt.model,
    "x-tollgate-attempts": String(relay.attempts.count),
  };
}

/**
 * Grows the hold to cover one more attempt (a dearer fallback, or a rescue with `extra`
 * input tokens and at most `maxOutputTokens` out) beside what was billed so far; throws
 * the client's 403 when the balance or the quota cannot.
 */
export async function coverAttempt(
  relay: RelayRequest,
  attempt: Attempt,
  options: { extraInputTokens?: number; maxOutputTokens?: number } = {},
): Promise<void> {
  const billed = relay.attempts.records.filter((record) => record.usage);
  const covered = await relay.hold.cover({
    model: attempt.model,
    inputTokens: relay.holdInputTokens + (options.extraInputTokens ?? 0),
    maxOutputTokens: options.maxOutputTokens ?? relay.request.maxOutputTokens,
  }, billed);
  if (!covered) {
    if (relay.hold.refusal) throw relay.hold.refusal;
    throw new GatewayError(
      403,
      "insufficient_user_quota",
      `Insufficient balance or quota to try model "${attempt.model}" on channel ` +
        `"${attempt.channel.name}": its worst case cannot be held beside what this request ` +
        "cost so far. Top up the account or lower max_tokens.",
    );
  }
}
