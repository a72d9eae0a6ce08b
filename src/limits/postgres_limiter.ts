/**
 * The limiter of several gateway processes on one PostgreSQL database: counts kept in the
 * database (migrations/postgres/002_limits.sql) on its clock, so a limit of 20 admits 20
 * whichever nodes the requests reach. Admission is one round trip (`take_limits` checks
 * and counts every scope under a lock); settling and releasing are one statement each.
 */
import { postgresLimitCounts, type TakeLimitsResult } from "../db/limits.ts";
import type { SqlClient } from "../db/sql_client.ts";
import type { GatewayError } from "../errors.ts";
import { databaseUnavailable } from "../db/unavailable.ts";
import type { Logger } from "../log.ts";
import { describeError } from "../log.ts";
import { type LimitState, rateLimitHeaders } from "./headers.ts";
import { type Admission, type Limiter, UNLIMITED } from "./limiter.ts";
import { limitRefusal } from "./refusal.ts";
import { type LimitedScope, scopesOf } from "./scopes.ts";

/** What the shared limiter is built from. */
export interface PostgresLimiterOptions {
  /** The database's plain SQL (the limit counts are db/limits.ts'). */
  client: SqlClient;
  /** This process's instance id: its leases stop counting once its heartbeat is stale. */
  instanceId: string;
  /** Whether an error means the database cannot be reached (503, not a bug). */
  isUnavailable(error: unknown): boolean;
  log: Logger;
}

/** Leases outlive a request's total timeout by this much before they stop counting. */
const LEASE_GRACE_MS = 60_000;

/** A limiter whose counts live in the PostgreSQL database every node shares. */
export function createPostgresLimiter(options: PostgresLimiterOptions): Limiter {
  const { log } = options;
  const counts = postgresLimitCounts(options.client);
  /** Settlements and releases sent and not yet answered, with the scopes they count in. */
  const landing = new Set<{ scopes: readonly string[]; landed: Promise<void> }>();
  const quietly = (what: string, scopes: readonly string[], work: Promise<unknown>) => {
    const entry = {
      scopes,
      landed: work.then(() => {}, (error) => log.error(what, { error: describeError(error) }))
        .finally(() => landing.delete(entry)),
    };
    landing.add(entry);
    return entry.landed;
  };

  return {
    async take(request): Promise<Admission | GatewayError> {
      const scopes = scopesOf(request.config, request.principal, request.model);
      if (scopes.length === 0) return UNLIMITED;
      // A client's next request, sent as its last answer came, counts what that one
      // counted and gave back in its scopes: they went out after the answer, so they may
      // not have landed. Other scopes' requests do not wait for them.
      if (landing.size > 0) {
        const ids = new Set(scopes.map((scope) => scope.id));
        const before = [...landing].filter((entry) => entry.scopes.some((id) => ids.has(id)));
        if (before.length > 0) await Promise.all(before.map((entry) => entry.landed));
      }
      const input = Math.max(0, Math.ceil(request.inputTokens));
      const lease = `lease_${crypto.randomUUID()}`;
      const leaseMs = request.config.timeouts.total + LEASE_GRACE_MS;
      const asked = scopes.map((scope) => ({
        id: scope.id,
        ...(scope.rpm !== undefined ? { rpm: scope.rpm } : {}),
        ...(scope.tpm !== undefined ? { tpm: scope.tpm } : {}),
        ...(scope.concurrency !== undefined ? { concurrency: scope.concurrency } : {}),
      }));
      let result: TakeLimitsResult;
      try {
        result = await counts.take({
          scopes: asked,
          inputTokens: input,
          lease,
          instanceId: options.instanceId,
          leaseMs,
        });
      } catch (error) {
        if (options.isUnavailable(error)) throw databaseUnavailable(error);
        throw error;
      }
      const headers = headersOf(scopes, result.states);
      if (!result.ok) {
        const byId = new Map(scopes.map((scope) => [scope.id, scope]));
        return limitRefusal(
          result.breaches.map((breach) => {
            const scope = byId.get(breach.id)!;
            return {
              scope,
              kind: breach.kind,
              limit: scope[breach.kind]!,
              waitMs: breach.wait_ms < 0 ? Infinity : breach.wait_ms,
              inputTokens: input,
            };
          }),
          headers,
        );
      }
      const tokenScopes = scopes.filter((scope) => scope.tpm !== undefined).map((s) => s.id);
      const leaseScopes = scopes.filter((scope) => scope.concurrency !== undefined)
        .map((scope) => scope.id);
      const leases = leaseScopes.map((id) => `${lease}:${id}`);
      let settled = false;
      let released = false;
      return {
        headers,
        async settle(outputTokens) {
          if (settled || tokenScopes.length === 0 || outputTokens <= 0) return;
          settled = true;
          await quietly(
            "counting output tokens toward tpm failed",
            tokenScopes,
            counts.settle(tokenScopes, Math.ceil(outputTokens)),
          );
        },
        async release() {
          if (released || leases.length === 0) return;
          released = true;
          await quietly(
            "releasing a concurrency lease failed (it lapses at its deadline)",
            leaseScopes,
            counts.release(leases),
          );
        },
      };
    },
  };
}

/** The headers of the tightest rpm and tpm among the scopes, from the database's windows. */
function headersOf(
  scopes: readonly LimitedScope[],
  states: TakeLimitsResult["states"],
): Record<string, string> | undefined {
  const byId = new Map(states.map((state) => [state.id, state]));
  let requests: LimitState | undefined;
  let tokens: LimitState | undefined;
  for (const scope of scopes) {
    const state = byId.get(scope.id);
    if (!state) continue;
    if (scope.rpm !== undefined) {
      const remaining = scope.rpm - Number(state.requests.used);
      if (!requests || remaining < requests.remaining) {
        requests = { limit: scope.rpm, remaining, resetMs: Number(state.requests.reset_ms) };
      }
    }
    if (scope.tpm !== undefined) {
      const remaining = scope.tpm - Number(state.tokens.used);
      if (!tokens || remaining < tokens.remaining) {
        tokens = { limit: scope.tpm, remaining, resetMs: Number(state.tokens.reset_ms) };
      }
    }
  }
  return rateLimitHeaders(requests, tokens);
}
