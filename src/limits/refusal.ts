/** The 429 of a request over a limit: what was hit, which setting, and when to retry. */
import { GatewayError } from "../errors.ts";
import type { LimitedScope, LimitKind } from "./scopes.ts";

/**
 * How long to suggest waiting on a full concurrency limit: a slot frees when a request
 * ends, which no window predicts; one second is the shortest Retry-After there is.
 */
export const CONCURRENCY_RETRY_MS = 1_000;

/** One limit a request is over. */
export interface Breach {
  scope: LimitedScope;
  kind: LimitKind;
  limit: number;
  /** Milliseconds until the limit admits the request; Infinity: never (tpm below its input). */
  waitMs: number;
  /** tpm: the input tokens the request was estimated at. */
  inputTokens: number;
}

/**
 * The refusal of a request over one or more limits: `Retry-After` is the longest wait
 * (every limit must admit it), absent when no wait ever will.
 */
export function limitRefusal(
  breaches: readonly Breach[],
  headers: Readonly<Record<string, string>> | undefined,
): GatewayError {
  let worst = breaches[0]!;
  for (const breach of breaches) if (breach.waitMs > worst.waitMs) worst = breach;
  const seconds = Math.max(1, Math.ceil(worst.waitMs / 1000));
  const retry = Number.isFinite(worst.waitMs) ? { "retry-after": String(seconds) } : undefined;
  return new GatewayError(429, "rate_limit_exceeded", refusalMessage(worst, seconds), {
    headers: { ...headers, ...retry },
  });
}

function refusalMessage(breach: Breach, seconds: number): string {
  const { scope, kind, limit } = breach;
  const setting = `${scope.setting(kind)} = ${limit}`;
  if (kind === "concurrency") {
    return `Too many requests at once for ${scope.label}: ${setting} allows ${limit} in flight. ` +
      "Retry when one of them has finished.";
  }
  if (kind === "rpm") {
    return `Rate limit reached for ${scope.label}: ${setting} allows ${limit} requests a minute. ` +
      `Retry in ${seconds} s.`;
  }
  if (!Number.isFinite(breach.waitMs)) {
    return `Request too large for ${scope.label}: its input of about ${breach.inputTokens} tokens ` +
      `is over ${setting} tokens a minute. Shorten the request or ask the operator to raise the limit.`;
  }
  return `Token rate limit reached for ${scope.label}: ${setting} allows ${limit} tokens a minute ` +
    `(input plus output) and this request's input is about ${breach.inputTokens}. ` +
    `Retry in ${seconds} s.`;
}
