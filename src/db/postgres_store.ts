/**
 * The store on PostgreSQL, shared by several gateway processes: holds and settlements
 * are calls of stored functions (migrations/postgres/001_init.sql), exact at READ
 * COMMITTED across nodes; those of one event-loop turn share one call, one round trip and
 * one commit. Heartbeats and hold expiry use the database's clock, which every node shares.
 */
import type { Pool, QueryResultRow } from "pg";
import { HAS_KEYS_SQL, keyByHashSql } from "./keys.ts";
import {
  DatabaseUnavailableError,
  type HoldResult,
  INTERRUPTED_REASON,
  type KeyWithAccount,
  type NewHold,
  NO_FAILURES,
  type Settle,
  type Store,
} from "./store.ts";
import { createBatchQueue } from "./write_queue.ts";

/**
 * SQLSTATE classes that mean "not now" rather than a bug: connection exception (08),
 * authorization (28: a configuration matter, not the client's), transaction rollback (40:
 * a deadlock victim, which the lock order makes rare), insufficient resources (53),
 * operator intervention such as a shutdown or a statement timeout (57), system error (58).
 */
const UNAVAILABLE_CLASSES = new Set(["08", "28", "40", "53", "57", "58"]);

/** The SQLSTATE class of a server error; undefined for the driver's own (connection) errors. */
function sqlstateClass(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code.slice(0, 2) : undefined;
}

/** Whether a driver error means the database is unavailable. */
export function isPostgresUnavailable(error: unknown): boolean {
  const sqlstate = sqlstateClass(error);
  // Anything the driver raises without a SQLSTATE is about the connection (refused,
  // reset, timed out, terminated).
  return sqlstate === undefined || UNAVAILABLE_CLASSES.has(sqlstate);
}

/**
 * Whether the jobs of a failed batch should be retried one by one: yes after an error of
 * one job or a deadlock, no when the database is unreachable (each would wait for it again).
 */
function retryAlone(error: unknown): boolean {
  return !(error instanceof DatabaseUnavailableError) || sqlstateClass(error.cause) === "40";
}

const TAKE_HOLD = `SELECT refusal, available FROM take_hold($1, $2, $3, $4, $5, $6, $7, $8, $9,
  $10, $11, $12, $13)`;
const SETTLE_HOLD = `SELECT settle_hold($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,
  $14, $15, $16, $17, $18, $19, $20, $21, $22)`;
const APPLY_BATCH = "SELECT item, refusal, available FROM apply_batch($1::jsonb)";
const HEARTBEAT = `INSERT INTO instances (id, host, pid, started_at, heartbeat_at)
  VALUES ($1, $2, $3, tollgate_now(), tollgate_now())
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
  RETURNING heartbeat_at`;
const KEY_BY_HASH = keyByHashSql("$1");
const RELEASABLE = "SELECT id FROM holds WHERE expires_at <= $1 OR instance_id = ANY($2::text[])";

/** `take_hold`'s arguments, in its parameter order (also apply_batch's item fields). */
function holdArguments(hold: NewHold) {
  return {
    id: hold.id,
    instance_id: hold.instanceId,
    account_id: hold.accountId,
    key_id: hold.keyId,
    amount_micros: hold.amountMicros,
    tokens: hold.tokens,
    // Expiry counts on the database's clock, from when the hold is recorded.
    ttl_ms: hold.expiresAt - hold.createdAt,
    request_id: hold.requestId,
    model: hold.model,
    entry_point: hold.entryPoint,
    stream: hold.stream ? 1 : 0,
    input_tokens: hold.inputTokens,
    input_cost_micros: hold.inputCostMicros,
  };
}

/** `settle_hold`'s arguments, in its parameter order (also apply_batch's item fields). */
function settleArguments(s: Settle) {
  return {
    hold_id: s.holdId,
    account_id: s.accountId,
    key_id: s.keyId,
    request_id: s.requestId,
    created_at: s.createdAt,
    model: s.model,
    entry_point: s.entryPoint,
    channel: s.channel,
    upstream_model: s.upstreamModel,
    served_model: s.servedModel ?? null,
    attempts: s.attempts,
    attempt_log: s.attemptLog ?? null,
    stream: s.stream ? 1 : 0,
    status: s.status,
    reason: s.reason,
    input_tokens: s.inputTokens,
    output_tokens: s.outputTokens,
    cached_tokens: s.cachedTokens,
    cache_write_tokens: s.cacheWriteTokens,
    estimated: s.estimated ? 1 : 0,
    duration_ms: s.durationMs,
    cost_micros: s.costMicros,
  };
}

/** A hold or a settlement waiting for the next batch. */
type Item = { kind: "hold"; hold: NewHold } | { kind: "settle"; settle: Settle };

/** A row of `take_hold` or `apply_batch`: the refusal, if any, and its figure. */
interface Outcome {
  refusal: string | null;
  available: number | null;
}

/** The HoldResult of one hold's outcome. */
function holdResult(outcome: Outcome | undefined): HoldResult {
  if (!outcome?.refusal) return { ok: true };
  const available = Number(outcome.available ?? 0);
  return outcome.refusal === "balance"
    ? { ok: false, reason: "balance", availableMicros: available }
    : { ok: false, reason: "key_quota", availableTokens: available };
}

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
  // Group commit: the holds and settlements of one event-loop turn go in one call (one
  // transaction); one alone goes through its own function, without the JSON.
  const apply = createBatchQueue(async (items: Item[]): Promise<(HoldResult | undefined)[]> => {
    if (items.length === 1) {
      const [item] = items;
      if (item!.kind === "settle") {
        await query("settle_hold", SETTLE_HOLD, Object.values(settleArguments(item!.settle)));
        return [undefined];
      }
      const rows = await query<Outcome>(
        "take_hold",
        TAKE_HOLD,
        Object.values(holdArguments(item!.hold)),
      );
      return [holdResult(rows[0])];
    }
    const rows = await query<Outcome & { item: number }>("apply_batch", APPLY_BATCH, [
      JSON.stringify(
        items.map((item) =>
          item.kind === "hold"
            ? { kind: "hold", ...holdArguments(item.hold) }
            : { kind: "settle", ...settleArguments(item.settle) }
        ),
      ),
    ]);
    const outcomes = new Map(rows.map((row) => [Number(row.item), row]));
    return items.map((item, i) =>
      item.kind === "hold" ? holdResult(outcomes.get(i + 1)) : undefined
    );
  }, { retryAlone });
  return {
    async takeHold(hold) {
      const [result] = await apply([{ kind: "hold", hold }]);
      return result!;
    },
    settleHold(settle) {
      return apply([{ kind: "settle", settle }]).then(
        () => NO_FAILURES,
        (error) => [{ settle, error }],
      );
    },
    // Every hold is in the database before its request goes upstream.
    async flush() {},
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
    async findKey(hash) {
      const [row] = await query<KeyWithAccount>("find_key", KEY_BY_HASH, [hash]);
      return row;
    },
    async hasKeys() {
      const [row] = await query<{ found: number }>("has_keys", HAS_KEYS_SQL, []);
      return Number(row?.found) === 1;
    },
    async ping() {
      await query("ping", "SELECT 1", []);
    },
  };
}
