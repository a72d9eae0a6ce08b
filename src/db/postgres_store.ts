/**
 * The store on PostgreSQL, shared by several gateway processes: every hold and every
 * settlement is one call of a stored function (migrations/postgres/001_init.sql), so one
 * round trip and one transaction each, exact at READ COMMITTED across nodes. Heartbeats
 * and hold expiry use the database's clock, which every node shares.
 */
import type { Pool, QueryResultRow } from "pg";
import { DatabaseUnavailableError, INTERRUPTED_REASON, type Store } from "./store.ts";

/**
 * SQLSTATE classes that mean "not now" rather than a bug: connection exception (08),
 * authorization (28: a configuration matter, not the client's), insufficient resources
 * (53), operator intervention such as a shutdown or a statement timeout (57), system
 * error (58).
 */
const UNAVAILABLE_CLASSES = new Set(["08", "28", "53", "57", "58"]);

/** Whether a driver error means the database is unavailable. */
export function isPostgresUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // Errors from the server carry a SQLSTATE; anything else the driver raises is about the
  // connection (refused, reset, timed out, terminated).
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) {
    return UNAVAILABLE_CLASSES.has(code.slice(0, 2));
  }
  return true;
}

const TAKE_HOLD = `SELECT refusal, available FROM take_hold($1, $2, $3, $4, $5, $6, $7, $8, $9,
  $10, $11, $12, $13)`;
const SETTLE_HOLD = `SELECT settle_hold($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
  $14, $15, $16, $17, $18, $19, $20)`;
const HEARTBEAT = `INSERT INTO instances (id, host, pid, started_at, heartbeat_at)
  VALUES ($1, $2, $3, tollgate_now(), tollgate_now())
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
  RETURNING heartbeat_at`;
const RELEASABLE = "SELECT id FROM holds WHERE expires_at <= $1 OR instance_id = ANY($2::text[])";

/** The store of a PostgreSQL database reached through `pool`. */
export function createPostgresStore(pool: Pool): Store {
  // Named statements are parsed and planned once per connection, then only executed.
  const query = async <R extends QueryResultRow>(
    name: string,
    text: string,
    values: unknown[],
  ): Promise<R[]> => {
    try {
      return (await pool.query<R>({ name, text, values })).rows;
    } catch (error) {
      throw isPostgresUnavailable(error) ? new DatabaseUnavailableError(error) : error;
    }
  };
  return {
    async takeHold(hold) {
      const [row] = await query<{ refusal: string | null; available: number | null }>(
        "take_hold",
        TAKE_HOLD,
        [
          hold.id,
          hold.instanceId,
          hold.accountId,
          hold.keyId,
          hold.amountMicros,
          hold.tokens,
          hold.expiresAt - hold.createdAt,
          hold.requestId,
          hold.model,
          hold.entryPoint,
          hold.stream ? 1 : 0,
          hold.inputTokens,
          hold.inputCostMicros,
        ],
      );
      if (!row?.refusal) return { ok: true };
      const available = Number(row.available ?? 0);
      return row.refusal === "balance"
        ? { ok: false, reason: "balance", availableMicros: available }
        : { ok: false, reason: "key_quota", availableTokens: available };
    },
    async settleHold(s) {
      await query("settle_hold", SETTLE_HOLD, [
        s.holdId,
        s.accountId,
        s.keyId,
        s.requestId,
        s.createdAt,
        s.model,
        s.entryPoint,
        s.channel,
        s.upstreamModel,
        s.attempts,
        s.stream ? 1 : 0,
        s.status,
        s.reason,
        s.inputTokens,
        s.outputTokens,
        s.cachedTokens,
        s.cacheWriteTokens,
        s.estimated ? 1 : 0,
        s.durationMs,
        s.costMicros,
      ]);
    },
    async heartbeat(instance) {
      const [row] = await query<{ heartbeat_at: number }>("heartbeat", HEARTBEAT, [
        instance.id,
        instance.host,
        instance.pid,
      ]);
      return Number(row!.heartbeat_at);
    },
    async listInstances() {
      const rows = await query<{ id: string; host: string; pid: number; heartbeat_at: number }>(
        "list_instances",
        "SELECT id, host, pid, heartbeat_at FROM instances",
        [],
      );
      return rows.map((row) => ({
        id: row.id,
        host: row.host,
        pid: Number(row.pid),
        heartbeatAt: Number(row.heartbeat_at),
      }));
    },
    async removeInstances(ids) {
      if (ids.length === 0) return;
      await query("remove_instances", "DELETE FROM instances WHERE id = ANY($1::text[])", [ids]);
    },
    async findReleasableHolds(now, dead) {
      const rows = await query<{ id: string }>("releasable_holds", RELEASABLE, [now, dead]);
      return rows.map((row) => row.id);
    },
    async interruptHolds(ids, now) {
      // One transaction per hold: each locks one hold, one account and one key, in the
      // order settlements do, so recovery never deadlocks with the requests still running.
      for (const id of ids) {
        await query("interrupt_hold", "SELECT interrupt_hold($1, $2, $3)", [
          id,
          now,
          INTERRUPTED_REASON,
        ]);
      }
    },
    async ping() {
      await query("ping", "SELECT 1", []);
    },
  };
}
