/**
 * The accounts' and keys' totals a hold is decided against: read once for a batch (or for
 * the hold decider's cache, hold_decider.ts), moved in memory as its holds and settlements
 * are decided, and each changed total written back once as a difference, so the batch's
 * writes add to whatever the row holds.
 */
import {
  ACCOUNT_BUDGET_COLUMNS,
  type BudgetFigures,
  budgetFiguresOf,
  budgetWrite,
  KEY_BUDGET_COLUMNS,
} from "./budget_totals.ts";
import type { SqlResult, SqlStatement } from "./sql_client.ts";

const ACCOUNT =
  `SELECT id, unlimited, balance_micros, held_micros, ${ACCOUNT_BUDGET_COLUMNS} FROM accounts WHERE id = ?`;
const KEY =
  `SELECT id, quota_tokens, used_tokens, held_tokens, ${KEY_BUDGET_COLUMNS} FROM api_keys WHERE id = ?`;
const ACCOUNT_TOTALS =
  "UPDATE accounts SET balance_micros = balance_micros + ?, held_micros = held_micros + ? WHERE id = ?";
const KEY_TOTALS =
  "UPDATE api_keys SET used_tokens = used_tokens + ?, held_tokens = held_tokens + ? WHERE id = ?";
/** KEY_TOTALS of a key that settled requests: its last use goes in the same statement. */
const KEY_TOTALS_USED = `UPDATE api_keys SET used_tokens = used_tokens + ?,
  held_tokens = held_tokens + ?, last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?`;

/** An account's figures as the batch moves them. */
export interface AccountTotals {
  unlimited: boolean;
  balance: number;
  held: number;
  readonly balanceBefore: number;
  readonly heldBefore: number;
  /** Its budget's figures (budget_totals.ts). */
  budget: BudgetFigures;
}

/** A key's figures as the batch moves them; `quota` null is no quota. */
export interface KeyTotals {
  quota: number | null;
  used: number;
  held: number;
  /** The latest settlement's time in this batch; 0 while none. */
  lastUsed: number;
  readonly usedBefore: number;
  readonly heldBefore: number;
  /** Its budget's figures (budget_totals.ts). */
  budget: BudgetFigures;
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
export function totalsOf(results: SqlResult[], accountIds: Set<number>, keyIds: Set<string>) {
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
      budget: budgetFiguresOf(row),
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
      budget: budgetFiguresOf(row),
    });
  }
  return keys;
}

/** The writes of the totals the batch moved, accounts first; an unmoved total is not written. */
export function totalsWrites(
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
): SqlStatement[] {
  const writes: SqlStatement[] = [];
  for (const [id, a] of accounts) {
    const budget = budgetWrite("accounts", id, a.budget);
    if (budget) writes.push(budget);
    if (a.balance === a.balanceBefore && a.held === a.heldBefore) continue;
    writes.push({
      sql: ACCOUNT_TOTALS,
      args: [a.balance - a.balanceBefore, a.held - a.heldBefore, id],
    });
  }
  for (const [id, k] of keys) {
    const budget = budgetWrite("api_keys", id, k.budget);
    if (budget) writes.push(budget);
    if (k.lastUsed > 0) {
      writes.push({
        sql: KEY_TOTALS_USED,
        args: [k.used - k.usedBefore, k.held - k.heldBefore, k.lastUsed, id],
      });
    } else if (k.used !== k.usedBefore || k.held !== k.heldBefore) {
      writes.push({ sql: KEY_TOTALS, args: [k.used - k.usedBefore, k.held - k.heldBefore, id] });
    }
  }
  return writes;
}
