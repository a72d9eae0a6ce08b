/**
 * The store on PostgreSQL, shared by several gateway processes: holds, extensions and
 * settlements are calls of stored functions (migrations/postgres/001_init.sql, 003, 010),
 * exact at READ COMMITTED across nodes; the holds and settlements of one event-loop turn
 * share one call (`apply_batch`), one round trip and one commit. Heartbeats and hold expiry
 * use the database's clock, which every node shares. The rest is the store every dialect
 * shares (sql_store.ts).
 */
import { sqlstateClass } from "./postgres_client.ts";
import type { SqlClient, SqlValue } from "./sql_client.ts";
import { createStore } from "./sql_store.ts";
import {
  DatabaseUnavailableError,
  type HoldResult,
  INTERRUPTED_REASON,
  type NewHold,
  NO_FAILURES,
  type Settle,
  type Store,
} from "./store.ts";
import { createBatchQueue } from "./write_queue.ts";

/**
 * Whether the jobs of a failed batch should be retried one by one: yes after an error of
 * one job or a deadlock, no when the database is unreachable (each would wait for it again).
 */
function retryAlone(error: unknown): boolean {
  return !(error instanceof DatabaseUnavailableError) || sqlstateClass(error.cause) === "40";
}

const TAKE_HOLD = `SELECT refusal, available FROM take_hold(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
  ?, ?, ?, ?::jsonb)`;
const EXTEND_HOLD = "SELECT refusal, available FROM extend_hold(?, ?, ?, ?, ?, ?::jsonb)";
const SETTLE_HOLD = `SELECT settle_hold(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
  ?, ?, ?, ?::jsonb)`;
const APPLY_BATCH = "SELECT item, refusal, available FROM apply_batch(?::jsonb)";
const INTERRUPT_HOLD = "SELECT interrupt_hold(?, ?, ?)";

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
    key_budget_micros: hold.keyBudgetMicros ?? 0,
    account_budget_micros: hold.accountBudgetMicros ?? 0,
    budgets: hold.budgets ?? null,
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
    budgets: s.budgets ?? null,
  };
}

/** A function's arguments in order, its JSON one as text (`?::jsonb`). */
function argumentsOf(fields: Record<string, unknown>): unknown[] {
  return Object.values(fields).map((value) =>
    value !== null && typeof value === "object" ? JSON.stringify(value) : value
  );
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
  if (outcome.refusal === "key_budget" || outcome.refusal === "account_budget") {
    return { ok: false, reason: outcome.refusal, availableMicros: available };
  }
  return outcome.refusal === "balance"
    ? { ok: false, reason: "balance", availableMicros: available }
    : { ok: false, reason: "key_quota", availableTokens: available };
}

/** The store of a PostgreSQL database reached through `client`. */
export function createPostgresStore(client: SqlClient): Store {
  const call = async (sql: string, args: unknown[]) =>
    (await client.execute({ sql, args: args as SqlValue[] })).rows as unknown as Outcome[];
  // Group commit: the holds and settlements of one event-loop turn go in one call (one
  // transaction); one alone goes through its own function, without the JSON.
  const apply = createBatchQueue(async (items: Item[]): Promise<(HoldResult | undefined)[]> => {
    if (items.length === 1) {
      const [item] = items;
      if (item!.kind === "settle") {
        await call(SETTLE_HOLD, argumentsOf(settleArguments(item!.settle)));
        return [undefined];
      }
      return [holdResult((await call(TAKE_HOLD, argumentsOf(holdArguments(item!.hold))))[0])];
    }
    const rows = await call(APPLY_BATCH, [
      JSON.stringify(
        items.map((item) =>
          item.kind === "hold"
            ? { kind: "hold", ...holdArguments(item.hold) }
            : { kind: "settle", ...settleArguments(item.settle) }
        ),
      ),
    ]) as (Outcome & { item: number })[];
    const outcomes = new Map(rows.map((row) => [Number(row.item), row]));
    return items.map((item, i) =>
      item.kind === "hold" ? holdResult(outcomes.get(i + 1)) : undefined
    );
  }, { retryAlone });
  return createStore(client, {
    clock: "database",
    takeHold: async (hold) => (await apply([{ kind: "hold", hold }]))[0]!,
    extendHold: async (holdId, micros, tokens, budgets) =>
      holdResult(
        (await call(EXTEND_HOLD, [
          holdId,
          micros,
          tokens,
          budgets?.in.key ? budgets.micros : 0,
          budgets?.in.account ? budgets.micros : 0,
          budgets ? JSON.stringify(budgets.in) : null,
        ]))[0],
      ),
    settleHold: (settle) =>
      apply([{ kind: "settle", settle }]).then(() => NO_FAILURES, (error) => [{ settle, error }]),
    // Every hold is in the database before its request goes upstream.
    async flush() {},
    async interruptHolds(ids, now) {
      // One transaction per hold: each locks one hold, one account and one key, in the
      // order settlements do, so recovery never deadlocks with the requests still running.
      for (const id of ids) await call(INTERRUPT_HOLD, [id, now, INTERRUPTED_REASON]);
    },
  });
}
