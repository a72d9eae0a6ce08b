/**
 * Holds, settlements and interruptions on SQLite, a batch at a time: the jobs queued
 * in one turn (write_queue.ts) read the accounts and keys they touch once, are decided
 * here in queue order against running totals (so a hold sees every hold before it, in
 * this batch or an earlier one: no two can spend the same money), and write each
 * account's and key's new totals once, all in one write transaction. Holds taken through
 * the hold journal are decided without a transaction (hold_decider.ts) and written later
 * as `record` jobs.
 * The types are the store's (store.ts).
 */
import type { RunTransaction, SqlClient, SqlResult, SqlStatement, SqlValue } from "./sql_client.ts";
import { BatchRollups } from "./rollup_rows.ts";
import { type HoldResult, INTERRUPTED_REASON, type NewHold, type Settle } from "./store.ts";

/** One job of the accounting queue. */
export type AccountingJob =
  | { kind: "hold"; hold: NewHold }
  /** A hold taken already (in the hold journal): its row and what it holds are written. */
  | { kind: "record"; hold: NewHold }
  | { kind: "settle"; settle: Settle }
  /** A hold no request will settle; its account and key were read beforehand. */
  | { kind: "interrupt"; holdId: string; accountId: number; keyId: string; now: number };

const ACCOUNT = "SELECT id, unlimited, balance_micros, held_micros FROM accounts WHERE id = ?";
const KEY = "SELECT id, quota_tokens, used_tokens, held_tokens FROM api_keys WHERE id = ?";
// A settlement knows what its hold held: whether the hold was still there is enough.
const RELEASE = "DELETE FROM holds WHERE id = ?";
// An interruption writes its request's row from what the hold kept of it.
const RELEASE_INTERRUPTED = `DELETE FROM holds WHERE id = ? RETURNING amount_micros, tokens,
  created_at, request_id, model, entry_point, stream, input_tokens, input_cost_micros`;
/**
 * Rows a multi-row INSERT writes at most: a statement's own cost (binding, stepping,
 * resetting) is paid once for them all, not once a row.
 */
const ROWS_PER_INSERT = 16;
/** `INSERT INTO {table} ({columns}) VALUES` with 1 to ROWS_PER_INSERT rows of placeholders. */
function insertsOf(table: string, columns: string): readonly string[] {
  const row = `(${columns.split(",").map(() => "?").join(", ")})`;
  return Array.from(
    { length: ROWS_PER_INSERT },
    (_, i) => `INSERT INTO ${table} (${columns}) VALUES ${Array(i + 1).fill(row).join(", ")}`,
  );
}
const INSERT_HOLDS = insertsOf(
  "holds",
  `id, instance_id, account_id, key_id, amount_micros, tokens, created_at, expires_at,
  request_id, model, entry_point, stream, input_tokens, input_cost_micros`,
);
const INSERT_LEDGER = insertsOf(
  "ledger",
  `request_id, created_at, account_id, key_id, model, entry_point, channel,
  upstream_model, attempts, stream, status, reason, input_tokens, output_tokens,
  cached_tokens, cache_write_tokens, estimated, duration_ms, cost_micros`,
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
const ACCOUNT_TOTALS =
  "UPDATE accounts SET balance_micros = balance_micros + ?, held_micros = held_micros + ? WHERE id = ?";
const KEY_TOTALS =
  "UPDATE api_keys SET used_tokens = used_tokens + ?, held_tokens = held_tokens + ? WHERE id = ?";
/** KEY_TOTALS of a key that settled requests: its last use goes in the same statement. */
const KEY_TOTALS_USED = `UPDATE api_keys SET used_tokens = used_tokens + ?,
  held_tokens = held_tokens + ?, last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?`;

/** An account's figures as the batch moves them. */
interface AccountTotals {
  unlimited: boolean;
  balance: number;
  held: number;
  readonly balanceBefore: number;
  readonly heldBefore: number;
}

/** A key's figures as the batch moves them; `quota` null is no quota. */
interface KeyTotals {
  quota: number | null;
  used: number;
  held: number;
  /** The latest settlement's time in this batch; 0 while none. */
  lastUsed: number;
  readonly usedBefore: number;
  readonly heldBefore: number;
}

/**
 * Runs a batch of jobs in one transaction; each job's result (a hold's outcome) in order.
 * `committed` runs once the batch committed, before anything else uses the database.
 */
export function runAccounting(
  transaction: RunTransaction,
  jobs: readonly AccountingJob[],
  committed?: () => void,
): Promise<(HoldResult | undefined)[]> {
  const accountIds = new Set<number>();
  const keyIds = new Set<string>();
  const releases: SqlStatement[] = [];
  const recorded = new Set(jobs.flatMap((job) => job.kind === "record" ? [job.hold.id] : []));
  /** Holds written and settled in this batch: neither their row nor its release is written. */
  const settledAtOnce = new Set<string>();
  for (const job of jobs) {
    const { accountId, keyId } = job.kind === "hold" || job.kind === "record"
      ? job.hold
      : job.kind === "settle"
      ? job.settle
      : job;
    accountIds.add(accountId);
    keyIds.add(keyId);
    if (job.kind === "settle" && recorded.has(job.settle.holdId)) {
      settledAtOnce.add(job.settle.holdId);
    } else if (job.kind === "settle") releases.push({ sql: RELEASE, args: [job.settle.holdId] });
    if (job.kind === "interrupt") releases.push({ sql: RELEASE_INTERRUPTED, args: [job.holdId] });
  }
  return transaction([...totalsReads(accountIds, keyIds), ...releases], (results) => {
    const { accounts, keys } = totalsOf(results, accountIds, keyIds);
    let released = accountIds.size + keyIds.size;
    const holdRows: SqlValue[][] = [];
    const ledgerRows: SqlValue[][] = [];
    const rollups = new BatchRollups();
    const value = jobs.map((job) => {
      if (job.kind === "hold") {
        const result = take(job.hold, accounts, keys);
        if (result.ok) holdRows.push(holdRow(job.hold));
        return result;
      }
      if (job.kind === "record") {
        countHeld(job.hold, accounts, keys);
        if (!settledAtOnce.has(job.hold.id)) holdRows.push(holdRow(job.hold));
        return undefined;
      }
      if (job.kind === "settle") {
        const { settle } = job;
        const held = settledAtOnce.has(settle.holdId) ||
          results[released++]!.rowsAffected > 0;
        charge(settle, held, accounts.get(settle.accountId), keys.get(settle.keyId), {
          ledgerRows,
          rollups,
        });
        return undefined;
      }
      const interrupted = results[released++]!.rows[0];
      if (interrupted) interrupt(job, interrupted, accounts, keys, { ledgerRows, rollups });
      return undefined;
    });
    const usage = rollups.rows();
    const writes = [
      ...inserts(INSERT_HOLDS, holdRows),
      ...inserts(INSERT_LEDGER, ledgerRows),
      ...inserts(UPSERT_HOURLY, usage.hourly),
      ...inserts(UPSERT_HOURLY_ACCOUNTS, usage.hourlyAccounts),
      ...inserts(UPSERT_DAILY, usage.daily),
    ];
    for (const [id, a] of accounts) {
      if (a.balance === a.balanceBefore && a.held === a.heldBefore) continue;
      writes.push({
        sql: ACCOUNT_TOTALS,
        args: [a.balance - a.balanceBefore, a.held - a.heldBefore, id],
      });
    }
    for (const [id, k] of keys) {
      if (k.lastUsed > 0) {
        writes.push({
          sql: KEY_TOTALS_USED,
          args: [k.used - k.usedBefore, k.held - k.heldBefore, k.lastUsed, id],
        });
      } else if (k.used !== k.usedBefore || k.held !== k.heldBefore) {
        writes.push({ sql: KEY_TOTALS, args: [k.used - k.usedBefore, k.held - k.heldBefore, id] });
      }
    }
    return { writes, value, committed };
  });
}

/** The reads of the accounts' and keys' totals, accounts first. */
export function totalsReads(accountIds: Set<number>, keyIds: Set<string>): SqlStatement[] {
  return [
    ...[...accountIds].map((id) => ({ sql: ACCOUNT, args: [id] })),
    ...[...keyIds].map((id) => ({ sql: KEY, args: [id] })),
  ];
}

/** The rows totalsReads' results read (undefined: no such row), accounts' then keys'. */
export function totalsRows(results: SqlResult[], accountCount: number, keyCount: number) {
  const rows = (from: number, count: number) =>
    results.slice(from, from + count).map((result) => result.rows[0]);
  return { accounts: rows(0, accountCount), keys: rows(accountCount, keyCount) };
}

/** The totals that totalsReads' results read. */
function totalsOf(results: SqlResult[], accountIds: Set<number>, keyIds: Set<string>) {
  const rows = totalsRows(results, accountIds.size, keyIds.size);
  return { accounts: accountTotals(rows.accounts), keys: keyTotals(rows.keys) };
}

/** Accounts' totals from their rows (ACCOUNT's columns); a missing row is skipped. */
export function accountTotals(rows: (Record<string, unknown> | undefined)[]) {
  const accounts = new Map<number, AccountTotals>();
  for (const row of rows) {
    if (!row) continue;
    const balance = Number(row.balance_micros);
    const held = Number(row.held_micros);
    accounts.set(Number(row.id), {
      unlimited: Number(row.unlimited) === 1,
      balance,
      held,
      balanceBefore: balance,
      heldBefore: held,
    });
  }
  return accounts;
}

/** Keys' totals from their rows (KEY's columns); a missing row is skipped. */
export function keyTotals(rows: (Record<string, unknown> | undefined)[]) {
  const keys = new Map<string, KeyTotals>();
  for (const row of rows) {
    if (!row) continue;
    const used = Number(row.used_tokens);
    const held = Number(row.held_tokens);
    keys.set(String(row.id), {
      quota: row.quota_tokens === null ? null : Number(row.quota_tokens),
      used,
      held,
      lastUsed: 0,
      usedBefore: used,
      heldBefore: held,
    });
  }
  return keys;
}

/**
 * A hold is taken if the account's available balance and the key's quota both cover it;
 * a refusal reports the figures of the check that refused it.
 */
export function take(
  hold: NewHold,
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
): HoldResult {
  const account = accounts.get(hold.accountId);
  const key = keys.get(hold.keyId);
  if (
    account && key &&
    (account.unlimited || account.balance - account.held >= hold.amountMicros) &&
    (key.quota === null || key.quota - key.used - key.held >= hold.tokens)
  ) {
    countHeld(hold, accounts, keys);
    return { ok: true };
  }
  // Without the account or the key nothing is available.
  const availableMicros = account && key ? account.balance - account.held : 0;
  if (!(account?.unlimited && key) && availableMicros < hold.amountMicros) {
    return { ok: false, reason: "balance", availableMicros: Math.max(0, availableMicros) };
  }
  const availableTokens = key?.quota != null ? key.quota - key.used - key.held : 0;
  return { ok: false, reason: "key_quota", availableTokens: Math.max(0, availableTokens) };
}

/** Counts a taken hold in its account's and key's totals. */
function countHeld(
  { accountId, keyId, amountMicros, tokens }: NewHold,
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
): void {
  const account = accounts.get(accountId);
  const key = keys.get(keyId);
  if (account) account.held += amountMicros;
  if (key) key.held += tokens;
}

/** The hold's row, in INSERT_HOLDS' column order. */
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

/** `rows` written by the fewest INSERTs of `sqls` (sqls[n - 1] writes n rows). */
function inserts(sqls: readonly string[], rows: SqlValue[][]): SqlStatement[] {
  const statements: SqlStatement[] = [];
  for (let from = 0; from < rows.length; from += sqls.length) {
    const chunk = rows.slice(from, from + sqls.length);
    statements.push({ sql: sqls[chunk.length - 1]!, args: chunk.flat() });
  }
  return statements;
}

/** The `interrupted` row of a hold no request will settle: billed for its estimated input. */
function interrupt(
  job: Extract<AccountingJob, { kind: "interrupt" }>,
  hold: Record<string, unknown>,
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
  rows: BatchRows,
): void {
  const createdAt = Number(hold.created_at);
  charge(
    {
      holdId: job.holdId,
      accountId: job.accountId,
      keyId: job.keyId,
      requestId: String(hold.request_id),
      createdAt: job.now,
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
      durationMs: job.now - createdAt,
      holdMicros: Number(hold.amount_micros),
      holdTokens: Number(hold.tokens),
    },
    true,
    accounts.get(job.accountId),
    keys.get(job.keyId),
    rows,
  );
}

/** The rows a batch writes of its settlements: ledger rows, and their rollups. */
interface BatchRows {
  ledgerRows: SqlValue[][];
  rollups: BatchRollups;
}

/**
 * Writes `s`'s ledger row and adds it to its hour's rollup, debits, counts its tokens and,
 * when its hold row was `released` (not gone already), releases what the hold held. The
 * debit never takes the balance below what the account's other holds need (nor below
 * zero): the row records what was debited.
 */
function charge(
  s: Settle,
  released: boolean,
  account: AccountTotals | undefined,
  key: KeyTotals | undefined,
  { ledgerRows, rollups }: BatchRows,
): void {
  if (account) {
    if (released) account.held -= s.holdMicros;
    const cost = account.unlimited
      ? s.costMicros
      : Math.max(0, Math.min(s.costMicros, account.balance - account.held));
    if (!account.unlimited) account.balance -= cost;
    ledgerRows.push([...ledgerValues(s), cost]);
    rollups.add(s, cost);
  }
  if (key) {
    key.used += s.inputTokens + s.outputTokens;
    if (released) key.held -= s.holdTokens;
    key.lastUsed = Math.max(key.lastUsed, s.createdAt);
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

/** Ids of holds past their expiry, or belonging to the given (dead) instances. */
export async function findReleasableHolds(
  client: SqlClient,
  now: number,
  deadInstances: readonly string[],
): Promise<string[]> {
  const placeholders = deadInstances.map(() => "?").join(", ");
  const result = await client.execute({
    sql: `SELECT id FROM holds WHERE expires_at <= ?${
      deadInstances.length ? ` OR instance_id IN (${placeholders})` : ""
    }`,
    args: [now, ...deadInstances],
  });
  return result.rows.map((row) => String(row.id));
}

/** Which of the given holds have their row. */
export async function presentHolds(
  client: SqlClient,
  holdIds: readonly string[],
): Promise<Set<string>> {
  if (holdIds.length === 0) return new Set();
  const { rows } = await client.execute({
    sql: `SELECT id FROM holds WHERE id IN (${holdIds.map(() => "?").join(", ")})`,
    args: [...holdIds],
  });
  return new Set(rows.map((row) => String(row.id)));
}

/** The interrupt jobs of the given holds, with their accounts and keys (gone holds are left out). */
export async function interruptJobs(
  client: SqlClient,
  holdIds: readonly string[],
  now: number,
): Promise<AccountingJob[]> {
  if (holdIds.length === 0) return [];
  const { rows } = await client.execute({
    sql: `SELECT id, account_id, key_id FROM holds WHERE id IN (${
      holdIds.map(() => "?").join(", ")
    })`,
    args: [...holdIds],
  });
  return rows.map((row) => ({
    kind: "interrupt",
    holdId: String(row.id),
    accountId: Number(row.account_id),
    keyId: String(row.key_id),
    now,
  }));
}
