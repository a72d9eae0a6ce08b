/**
 * A settlement in a SQLite batch (holds.ts): its debit and token count on the batch's
 * totals (totals.ts), and the ledger row and rollups (rollup_rows.ts) it adds to what the
 * batch writes. Interruptions settle through here too (hold_recovery.ts).
 */
import type { AlertRow } from "./alert_rows.ts";
import { settleBudgets } from "./budget_totals.ts";
import type { SqlStatement, SqlValue } from "./sql_client.ts";
import type { BatchRollups } from "./rollup_rows.ts";
import { inserts, insertsOf } from "./row_inserts.ts";
import type { Settle } from "./store.ts";
import type { AccountTotals, KeyTotals } from "./totals.ts";

const INSERT_LEDGER = insertsOf(
  "ledger",
  `request_id, created_at, account_id, key_id, model, entry_point, channel,
  upstream_model, served_model, attempts, attempt_log, stream, status, reason, input_tokens,
  output_tokens, cached_tokens, cache_write_tokens, estimated, duration_ms, cost_micros`,
);
/** Adds a batch's rollup rows to what `table` holds; `key` names its key's columns. */
function upsertRollups(table: string, key: string): readonly string[] {
  return insertsOf(
    table,
    `${key}, requests, errors, input_tokens, output_tokens, cached_tokens,
    cache_write_tokens, cost_micros`,
  ).map((insert) =>
    `${insert} ON CONFLICT (${key}) DO UPDATE SET
    requests = requests + excluded.requests, errors = errors + excluded.errors,
    input_tokens = input_tokens + excluded.input_tokens,
    output_tokens = output_tokens + excluded.output_tokens,
    cached_tokens = cached_tokens + excluded.cached_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    cost_micros = cost_micros + excluded.cost_micros`
  );
}
const UPSERT_HOURLY = upsertRollups("usage_hourly", "hour, account_id, key_id, model");
const UPSERT_HOURLY_ACCOUNTS = upsertRollups("usage_hourly_accounts", "hour, account_id");
const UPSERT_DAILY = upsertRollups("usage_daily", "day, account_id, key_id, model");

/** The rows a batch writes of its settlements: ledger rows, and their rollups. */
export interface BatchRows {
  ledgerRows: SqlValue[][];
  rollups: BatchRollups;
  /** The alert events its settlements (and refusals) announce (budget_totals.ts). */
  alerts: AlertRow[];
}

/**
 * Writes `s`'s ledger row and adds it to its hour's rollup, debits, counts its tokens and
 * releases what its hold held then (`freed`; undefined when the hold was gone already).
 * The debit never takes the balance below what the account's other holds need (nor below
 * zero): the row records what was debited.
 */
export function charge(
  s: Settle,
  freed: { micros: number; tokens: number; keyBudget: number; accountBudget: number } | undefined,
  account: AccountTotals | undefined,
  key: KeyTotals | undefined,
  { ledgerRows, rollups, alerts }: BatchRows,
): void {
  let charged = s.costMicros;
  if (account) {
    if (freed) account.held -= freed.micros;
    const cost = account.unlimited
      ? s.costMicros
      : Math.max(0, Math.min(s.costMicros, account.balance - account.held));
    if (!account.unlimited) account.balance -= cost;
    charged = cost;
    ledgerRows.push([...ledgerValues(s), cost]);
    rollups.add(s, cost);
  }
  if (key) {
    key.used += s.inputTokens + s.outputTokens;
    if (freed) key.held -= freed.tokens;
    key.lastUsed = Math.max(key.lastUsed, s.createdAt);
  }
  // Budgets count what the row records; nothing to do for a request without any.
  if (s.budgets || freed?.keyBudget || freed?.accountBudget) {
    const released = { keyBudget: freed?.keyBudget ?? 0, accountBudget: freed?.accountBudget ?? 0 };
    settleBudgets(s, released, charged, account, key, alerts);
  }
}

/** The ledger columns of `s` but its cost, in INSERT_LEDGER's order. */
function ledgerValues(s: Settle): (string | number | null)[] {
  return [
    s.requestId,
    s.createdAt,
    s.accountId,
    s.keyId,
    s.model,
    s.entryPoint,
    s.channel,
    s.upstreamModel,
    s.servedModel ?? null,
    s.attempts,
    s.attemptLog ?? null,
    s.stream ? 1 : 0,
    s.status,
    s.reason,
    s.inputTokens,
    s.outputTokens,
    s.cachedTokens,
    s.cacheWriteTokens,
    s.estimated ? 1 : 0,
    s.durationMs,
  ];
}

/**
 * The writes of a batch's ledger rows, then of their hourly, accounts' and daily rollups and
 * their channels' minutes.
 */
export function ledgerWrites({ ledgerRows, rollups }: BatchRows): SqlStatement[] {
  const usage = rollups.rows();
  return [
    ...inserts(INSERT_LEDGER, ledgerRows),
    ...inserts(UPSERT_HOURLY, usage.hourly),
    ...inserts(UPSERT_HOURLY_ACCOUNTS, usage.hourlyAccounts),
    ...inserts(UPSERT_DAILY, usage.daily),
    ...rollups.channels.writes(),
  ];
}
