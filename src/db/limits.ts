/**
 * The limit counts of several gateway processes on one PostgreSQL database
 * (migrations/postgres/002_limits.sql), on its clock: what the shared limiter
 * (limits/postgres_limiter.ts) asks of the database, one statement each.
 */
import type { SqlClient } from "./sql_client.ts";

/** A scope's window as the database reports it. */
export interface WindowState {
  used: number;
  reset_ms: number;
}

/** What `take_limits` answers. */
export interface TakeLimitsResult {
  ok: boolean;
  breaches: { id: string; kind: "rpm" | "tpm" | "concurrency"; wait_ms: number }[];
  states: { id: string; requests: WindowState; tokens: WindowState }[];
}

/** A request's scopes as `take_limits` reads them. */
export interface AskedScope {
  id: string;
  rpm?: number;
  tpm?: number;
  concurrency?: number;
}

/** The shared limit counts. */
export interface LimitCounts {
  /**
   * Admits a request under its scopes' limits, counting it (and `inputTokens` toward tpm)
   * and leasing a concurrency slot of each scope that has one (`${lease}:${scope}`), or
   * refuses it, counting nothing.
   */
  take(request: {
    scopes: AskedScope[];
    inputTokens: number;
    lease: string;
    instanceId: string;
    leaseMs: number;
  }): Promise<TakeLimitsResult>;
  /** Counts a request's output tokens toward the tpm of `scopes`. */
  settle(scopes: readonly string[], outputTokens: number): Promise<void>;
  /** Gives back concurrency leases. */
  release(leases: readonly string[]): Promise<void>;
}

/** The limit counts in the PostgreSQL database `client` reaches. */
export function postgresLimitCounts(client: SqlClient): LimitCounts {
  return {
    async take({ scopes, inputTokens, lease, instanceId, leaseMs }) {
      const { rows } = await client.execute({
        sql: "SELECT take_limits(?::jsonb, ?, ?, ?, ?) AS result",
        args: [JSON.stringify(scopes), inputTokens, lease, instanceId, leaseMs],
      });
      return rows[0]!.result as TakeLimitsResult;
    },
    async settle(scopes, outputTokens) {
      await client.execute({
        sql: "SELECT settle_limits(ARRAY(SELECT jsonb_array_elements_text(?::jsonb)), ?)",
        args: [JSON.stringify(scopes), outputTokens],
      });
    },
    async release(leases) {
      await client.execute({
        sql: "DELETE FROM limit_leases WHERE id IN (SELECT jsonb_array_elements_text(?::jsonb))",
        args: [JSON.stringify(leases)],
      });
    },
  };
}
