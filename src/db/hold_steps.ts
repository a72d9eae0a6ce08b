/**
 * Holds and settlements on SQLite (a file or a libSQL server), as steps of a write
 * transaction (sql_client.ts): each reads the rows it decides on, then writes. A write
 * transaction holds SQLite's one write lock from its start, so what a step read is what it
 * changes, and steps of one transaction each see the ones before them: no two holds can
 * spend the same money. The same operations on PostgreSQL are its stored functions
 * (migrations/postgres/001_init.sql, 003, 010), which lock rows in the same order.
 */
import type { SqlStatement, SqlValue, Step } from "./sql_client.ts";
import { type HoldResult, INTERRUPTED_REASON, type NewHold, type Settle } from "./store.ts";

type Row = Record<string, unknown>;

const ACCOUNT = "SELECT unlimited, balance_micros, held_micros FROM accounts WHERE id = ?";
const KEY = "SELECT quota_tokens, used_tokens, held_tokens FROM api_keys WHERE id = ?";
const HOLD_MONEY = "UPDATE accounts SET held_micros = held_micros + ? WHERE id = ?";
const HOLD_TOKENS = "UPDATE api_keys SET held_tokens = held_tokens + ? WHERE id = ?";
const INSERT_HOLD = `INSERT INTO holds (id, instance_id, account_id, key_id, amount_micros,
  tokens, created_at, expires_at, request_id, model, entry_point, stream, input_tokens,
  input_cost_micros) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** A hold with its account's and key's figures, as KEY and ACCOUNT read them. */
const HOLD_WITH_TOTALS = `SELECT h.account_id, h.key_id, a.unlimited, a.balance_micros,
  a.held_micros, k.quota_tokens, k.used_tokens, k.held_tokens
  FROM holds h JOIN accounts a ON a.id = h.account_id JOIN api_keys k ON k.id = h.key_id
  WHERE h.id = ?`;
const GROW_HOLD =
  "UPDATE holds SET amount_micros = amount_micros + ?, tokens = tokens + ? WHERE id = ?";
const RELEASE = "DELETE FROM holds WHERE id = ? RETURNING amount_micros, tokens";
const RELEASE_WHOLE = "DELETE FROM holds WHERE id = ? RETURNING *";
const ACCOUNT_OF_HOLD =
  "SELECT unlimited, balance_micros, held_micros FROM accounts WHERE id = (SELECT account_id FROM holds WHERE id = ?)";
const CHARGE_ACCOUNT =
  "UPDATE accounts SET held_micros = held_micros - ?, balance_micros = balance_micros - ? WHERE id = ?";
const CHARGE_KEY =
  `UPDATE api_keys SET used_tokens = used_tokens + ?, held_tokens = held_tokens - ?,
  last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?`;
const INSERT_LEDGER = `INSERT INTO ledger (request_id, created_at, account_id, key_id, model,
  entry_point, channel, upstream_model, attempts, stream, status, reason, input_tokens,
  output_tokens, cached_tokens, cache_write_tokens, estimated, duration_ms, cost_micros)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Adds one ledger row's figures to `table`'s row of its `key` columns (migrations/006). */
function rollup(table: string, key: string): string {
  const columns = key.split(", ");
  return `INSERT INTO ${table} (${key}, requests, errors, input_tokens, output_tokens,
    cached_tokens, cache_write_tokens, cost_micros)
    VALUES (${columns.map(() => "?").join(", ")}, 1, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (${key}) DO UPDATE SET requests = requests + 1,
    errors = errors + excluded.errors, input_tokens = input_tokens + excluded.input_tokens,
    output_tokens = output_tokens + excluded.output_tokens,
    cached_tokens = cached_tokens + excluded.cached_tokens,
    cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
    cost_micros = cost_micros + excluded.cost_micros`;
}
const HOURLY = rollup("usage_hourly", "hour, account_id, key_id, model");
const HOURLY_ACCOUNTS = rollup("usage_hourly_accounts", "hour, account_id");
const DAILY = rollup("usage_daily", "day, account_id, key_id, model");

/** An hour and a day in milliseconds: the rollups' buckets (UTC). */
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/**
 * Whether an account's available balance (unless unlimited) and a key's quota cover
 * `micros` and `tokens` more, from their rows (ACCOUNT's and KEY's columns); a refusal
 * reports the figures of the check that refused. A missing row covers nothing. A key
 * without a quota holds no tokens: `tokens` is what the key holds if granted.
 */
function reserve(
  account: Row | undefined,
  key: Row | undefined,
  micros: number,
  tokens: number,
): { result: HoldResult; tokens: number } {
  const unlimited = Number(account?.unlimited) === 1;
  const availableMicros = account && key
    ? Number(account.balance_micros) - Number(account.held_micros)
    : 0;
  const quota = key?.quota_tokens == null ? null : Number(key.quota_tokens);
  const availableTokens = quota === null
    ? 0
    : quota - Number(key!.used_tokens) - Number(key!.held_tokens);
  if (
    account && key && (unlimited || availableMicros >= micros) &&
    (quota === null || availableTokens >= tokens)
  ) {
    return { result: { ok: true }, tokens: quota === null ? 0 : tokens };
  }
  if (!(unlimited && key) && availableMicros < micros) {
    return {
      result: { ok: false, reason: "balance", availableMicros: Math.max(0, availableMicros) },
      tokens: 0,
    };
  }
  return {
    result: { ok: false, reason: "key_quota", availableTokens: Math.max(0, availableTokens) },
    tokens: 0,
  };
}

/** The writes that hold `micros` on an account and `tokens` on a key. */
function holdWrites(accountId: unknown, keyId: unknown, micros: number, tokens: number) {
  const writes: SqlStatement[] = [];
  if (micros !== 0) writes.push({ sql: HOLD_MONEY, args: [micros, accountId as SqlValue] });
  if (tokens !== 0) writes.push({ sql: HOLD_TOKENS, args: [tokens, keyId as SqlValue] });
  return writes;
}

/** Takes a hold if the account's available balance and the key's quota both cover it. */
export function takeHoldStep(hold: NewHold): Step<HoldResult> {
  return {
    reads: [{ sql: ACCOUNT, args: [hold.accountId] }, { sql: KEY, args: [hold.keyId] }],
    decide([account, key]) {
      const { result, tokens } = reserve(
        account!.rows[0],
        key!.rows[0],
        hold.amountMicros,
        hold.tokens,
      );
      if (!result.ok) return { writes: [], value: result };
      const writes = holdWrites(hold.accountId, hold.keyId, hold.amountMicros, tokens);
      writes.push({ sql: INSERT_HOLD, args: holdRow({ ...hold, tokens }) });
      return { writes, value: result };
    },
  };
}

/**
 * Grows a hold by `micros` and `tokens` if its account's available balance and its key's
 * quota cover them. A hold already gone (settled, or interrupted) covers nothing more.
 */
export function extendHoldStep(holdId: string, micros: number, tokens: number): Step<HoldResult> {
  return {
    reads: [{ sql: HOLD_WITH_TOTALS, args: [holdId] }],
    decide([found]) {
      const row = found!.rows[0];
      if (!row) return { writes: [], value: { ok: false, reason: "balance", availableMicros: 0 } };
      const reserved = reserve(row, row, micros, tokens);
      if (!reserved.result.ok) return { writes: [], value: reserved.result };
      const writes = holdWrites(row.account_id, row.key_id, micros, reserved.tokens);
      writes.push({ sql: GROW_HOLD, args: [micros, reserved.tokens, holdId] });
      return { writes, value: reserved.result };
    },
  };
}

/**
 * Releases the hold (what its row holds now, grown or not: nothing if it is gone), writes
 * the ledger row and its rollups, debits the account and counts the key's tokens.
 */
export function settleStep(settle: Settle): Step<void> {
  return {
    reads: [
      { sql: RELEASE, args: [settle.holdId] },
      { sql: ACCOUNT, args: [settle.accountId] },
    ],
    decide: ([released, account]) => ({
      writes: charge(settle, released!.rows[0], account!.rows[0]),
      value: undefined,
    }),
  };
}

/**
 * Turns a hold no request will settle into an `interrupted` ledger row billed for its
 * estimated input, and releases it; a hold already gone is skipped, so that two processes
 * recovering the same hold write one row.
 */
export function interruptStep(holdId: string, now: number): Step<void> {
  return {
    // The account first, while the hold still names it.
    reads: [{ sql: ACCOUNT_OF_HOLD, args: [holdId] }, { sql: RELEASE_WHOLE, args: [holdId] }],
    decide([account, released]) {
      const hold = released!.rows[0];
      if (!hold) return { writes: [], value: undefined };
      const settle: Settle = {
        holdId,
        accountId: Number(hold.account_id),
        keyId: String(hold.key_id),
        requestId: String(hold.request_id),
        createdAt: now,
        model: String(hold.model),
        entryPoint: String(hold.entry_point),
        channel: null,
        upstreamModel: null,
        attempts: 0,
        stream: Number(hold.stream) === 1,
        status: "interrupted",
        reason: INTERRUPTED_REASON,
        inputTokens: Number(hold.input_tokens),
        outputTokens: 0,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        estimated: true,
        costMicros: Number(hold.input_cost_micros),
        durationMs: now - Number(hold.created_at),
      };
      return { writes: charge(settle, hold, account!.rows[0]), value: undefined };
    },
  };
}

/**
 * The writes of a settlement against its account's row: what the hold held (`released`,
 * undefined when it was gone) goes, and the debit never takes the balance below what the
 * account's other holds need, nor below zero; the ledger row records what was debited.
 */
function charge(s: Settle, released: Row | undefined, account: Row | undefined): SqlStatement[] {
  const releasedMicros = Number(released?.amount_micros ?? 0);
  const releasedTokens = Number(released?.tokens ?? 0);
  const unlimited = Number(account?.unlimited) === 1;
  const room = Number(account?.balance_micros ?? 0) - Number(account?.held_micros ?? 0) +
    releasedMicros;
  const debit = unlimited ? 0 : Math.max(0, Math.min(s.costMicros, room));
  const cost = unlimited ? s.costMicros : debit;
  const writes: SqlStatement[] = [];
  if (releasedMicros !== 0 || debit !== 0) {
    writes.push({ sql: CHARGE_ACCOUNT, args: [releasedMicros, debit, s.accountId] });
  }
  writes.push({
    sql: CHARGE_KEY,
    args: [s.inputTokens + s.outputTokens, releasedTokens, s.createdAt, s.keyId],
  });
  writes.push({ sql: INSERT_LEDGER, args: [...ledgerValues(s), cost] });
  const hour = s.createdAt - (s.createdAt % HOUR_MS);
  const figures = [
    s.status === "failed" || s.status === "interrupted" ? 1 : 0,
    s.inputTokens,
    s.outputTokens,
    s.cachedTokens,
    s.cacheWriteTokens,
    cost,
  ];
  writes.push(
    { sql: HOURLY, args: [hour, s.accountId, s.keyId, s.model, ...figures] },
    { sql: HOURLY_ACCOUNTS, args: [hour, s.accountId, ...figures] },
    { sql: DAILY, args: [hour - (hour % DAY_MS), s.accountId, s.keyId, s.model, ...figures] },
  );
  return writes;
}

/** The ledger columns of `s` but its cost, in INSERT_LEDGER's order. */
function ledgerValues(s: Settle): SqlValue[] {
  return [
    s.requestId,
    s.createdAt,
    s.accountId,
    s.keyId,
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
  ];
}

/** The hold's row, in INSERT_HOLD's column order. */
function holdRow(hold: NewHold): SqlValue[] {
  return [
    hold.id,
    hold.instanceId,
    hold.accountId,
    hold.keyId,
    hold.amountMicros,
    hold.tokens,
    hold.createdAt,
    hold.expiresAt,
    hold.requestId,
    hold.model,
    hold.entryPoint,
    hold.stream ? 1 : 0,
    hold.inputTokens,
    hold.inputCostMicros,
  ];
}
