/**
 * The limiter of one gateway process: counts in memory, per scope (key, account,
 * model), in sliding 60-second windows of one-second buckets. Checking and counting
 * happen in one synchronous step, so concurrent requests cannot both take the last slot.
 * The counts outlive config reloads (the limits are read from each request's config),
 * and are lost on restart, which only forgives a minute of traffic.
 */
import type { GatewayError } from "../errors.ts";
import { type LimitState, rateLimitHeaders } from "./headers.ts";
import { type Admission, type Limiter, type LimitRequest, UNLIMITED } from "./limiter.ts";
import { type Breach, CONCURRENCY_RETRY_MS, limitRefusal } from "./refusal.ts";
import { type LimitedScope, scopesOf } from "./scopes.ts";
import { SlidingWindow } from "./window.ts";

/** The counts of one scope; a window exists once its limit was first configured. */
interface ScopeCounts {
  requests?: SlidingWindow;
  tokens?: SlidingWindow;
  inFlight: number;
}

/** An in-memory limiter reading time from `now` (milliseconds). */
export function createMemoryLimiter(options: { now: () => number }): Limiter {
  // One entry per key, account and model that ever had a limit: bounded by the database
  // and the config, so nothing is evicted.
  const counts = new Map<string, ScopeCounts>();
  const countsOf = (scope: LimitedScope) => {
    let found = counts.get(scope.id);
    if (!found) counts.set(scope.id, found = { inFlight: 0 });
    return found;
  };

  /** Checks every limit and counts the request in one synchronous step. */
  const admit = (request: LimitRequest): Admission | GatewayError => {
    const scopes = scopesOf(request.config, request.principal, request.model);
    if (scopes.length === 0) return UNLIMITED;
    const now = options.now();
    const input = Math.max(0, Math.ceil(request.inputTokens));
    const scoped = scopes.map((scope) => ({ scope, counts: countsOf(scope) }));

    // Every limit is checked before anything is counted: a refused request counts nowhere.
    const breaches: Breach[] = [];
    for (const { scope, counts } of scoped) {
      const breach = (kind: Breach["kind"], limit: number, waitMs: number) =>
        breaches.push({ scope, kind, limit, waitMs, inputTokens: input });
      if (scope.rpm !== undefined) {
        const waitMs = (counts.requests ??= new SlidingWindow()).waitMs(1, scope.rpm, now);
        if (waitMs > 0) breach("rpm", scope.rpm, waitMs);
      }
      if (scope.tpm !== undefined) {
        const waitMs = (counts.tokens ??= new SlidingWindow()).waitMs(input, scope.tpm, now);
        if (waitMs > 0) breach("tpm", scope.tpm, waitMs);
      }
      if (scope.concurrency !== undefined && counts.inFlight >= scope.concurrency) {
        breach("concurrency", scope.concurrency, CONCURRENCY_RETRY_MS);
      }
    }
    if (breaches.length > 0) return limitRefusal(breaches, headersOf(scoped, now));

    const slots: ScopeCounts[] = [];
    const tokenWindows: SlidingWindow[] = [];
    for (const { scope, counts } of scoped) {
      if (scope.rpm !== undefined) counts.requests!.add(1, now);
      if (scope.tpm !== undefined) {
        counts.tokens!.add(input, now);
        tokenWindows.push(counts.tokens!);
      }
      if (scope.concurrency !== undefined) {
        counts.inFlight++;
        slots.push(counts);
      }
    }
    let settled = false;
    let released = false;
    return {
      headers: headersOf(scoped, now),
      settle(outputTokens) {
        if (!settled) {
          settled = true;
          const at = options.now();
          for (const window of tokenWindows) window.add(Math.max(0, outputTokens), at);
        }
        return Promise.resolve();
      },
      release() {
        if (!released) {
          released = true;
          // The slots taken at admission, whatever a reload has done to the limits since.
          for (const slot of slots) slot.inFlight--;
        }
        return Promise.resolve();
      },
    };
  };
  return { take: (request) => Promise.resolve(admit(request)) };
}

/**
 * The headers of the tightest limits: of the scopes with an rpm (a tpm), the one with
 * the least left, so a client pacing itself by them stays under all of them.
 */
function headersOf(
  scoped: readonly { scope: LimitedScope; counts: ScopeCounts }[],
  now: number,
): Record<string, string> | undefined {
  let requests: LimitState | undefined;
  let tokens: LimitState | undefined;
  for (const { scope, counts } of scoped) {
    if (scope.rpm !== undefined && counts.requests) {
      const remaining = scope.rpm - counts.requests.used(now);
      if (!requests || remaining < requests.remaining) {
        requests = { limit: scope.rpm, remaining, resetMs: counts.requests.resetMs(now) };
      }
    }
    if (scope.tpm !== undefined && counts.tokens) {
      const remaining = scope.tpm - counts.tokens.used(now);
      if (!tokens || remaining < tokens.remaining) {
        tokens = { limit: scope.tpm, remaining, resetMs: counts.tokens.resetMs(now) };
      }
    }
  }
  return rateLimitHeaders(requests, tokens);
}
