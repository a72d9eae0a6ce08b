/**
 * The budget figures of the accounts' and keys' totals in a SQLite batch (totals.ts): read
 * with the totals, moved in memory by the batch's holds and settlements with the pure
 * decisions of budget_thresholds.ts, and written back once when they changed. The batch
 * reads and writes them in one write transaction, so they are written as values. The
 * alert events a batch decides are rows of its own (alert_rows.ts).
 */
import {
  balanceFloors,
  type BudgetCounter,
  budgetRoom,
  refuseBudget,
  settleBudget,
} from "./budget_thresholds.ts";
import { type AlertRow, balanceEvent, budgetEvent } from "./alert_rows.ts";
import type { SqlStatement } from "./sql_client.ts";
import type { HoldBudgets, HoldResult, SettleBudgets } from "./store.ts";

/** The budget columns a key's totals read, after its own. */
export const KEY_BUDGET_COLUMNS = "budget_period_start, budget_spent_micros, budget_held_micros, " +
  "budget_alert_ppm, budget_alert_limit_micros";
/** An account's, with the floor of its balance alerts. */
export const ACCOUNT_BUDGET_COLUMNS = `${KEY_BUDGET_COLUMNS}, balance_alert_floor_micros`;

/** One scope's budget figures in a batch, and what they were when read. */
export interface BudgetFigures extends BudgetCounter {
  /** The lowest balance floor announced (accounts only); null: none. */
  floor: number | null;
  readonly before: readonly number[];
}

/** What a reservation asks of the budgets: its amounts per scope and their limits. */
export interface BudgetAsk {
  keyBudgetMicros?: number;
  accountBudgetMicros?: number;
  budgets?: HoldBudgets;
}

/** A scope's figures from its row (the budget columns above). */
export function budgetFiguresOf(row: Record<string, unknown>): BudgetFigures {
  const figures = {
    start: Number(row.budget_period_start ?? 0),
    spent: Number(row.budget_spent_micros ?? 0),
    held: Number(row.budget_held_micros ?? 0),
    alertPpm: Number(row.budget_alert_ppm ?? 0),
    alertLimit: Number(row.budget_alert_limit_micros ?? 0),
    floor: row.balance_alert_floor_micros == null ? null : Number(row.balance_alert_floor_micros),
  };
  return { ...figures, before: valuesOf(figures) };
}

function valuesOf(f: Omit<BudgetFigures, "before">): number[] {
  return [f.start, f.spent, f.held, f.alertPpm, f.alertLimit, f.floor ?? -1];
}

/** The write of a scope's figures if they changed. */
export function budgetWrite(
  table: "accounts" | "api_keys",
  id: number | string,
  figures: BudgetFigures,
): SqlStatement | undefined {
  const now = valuesOf(figures);
  if (now.every((value, i) => value === figures.before[i])) return undefined;
  const floor = table === "accounts" ? ", balance_alert_floor_micros = ?" : "";
  return {
    sql: `UPDATE ${table} SET budget_period_start = ?, budget_spent_micros = ?,
      budget_held_micros = ?, budget_alert_ppm = ?, budget_alert_limit_micros = ?${floor}
      WHERE id = ?`,
    args: [
      figures.start,
      figures.spent,
      figures.held,
      figures.alertPpm,
      figures.alertLimit,
      ...(table === "accounts" ? [figures.floor] : []),
      id,
    ],
  };
}

/**
 * Whether the budgets of the key and of the account leave room for `ask`; the refusal of
 * the one that does not (the account's first, as its row is locked first on PostgreSQL).
 */
export function budgetRefusal(
  ask: BudgetAsk,
  account: BudgetFigures,
  key: BudgetFigures,
  unwritten?: { account: number; key: number },
): HoldResult | undefined {
  const limits = ask.budgets;
  if (!limits) return undefined;
  if (limits.account) {
    const room = budgetRoom(account, limits.account) - (unwritten?.account ?? 0);
    if (room < (ask.accountBudgetMicros ?? 0)) {
      return { ok: false, reason: "account_budget", availableMicros: Math.max(0, room) };
    }
  }
  if (limits.key) {
    const room = budgetRoom(key, limits.key) - (unwritten?.key ?? 0);
    if (room < (ask.keyBudgetMicros ?? 0)) {
      return { ok: false, reason: "key_budget", availableMicros: Math.max(0, room) };
    }
  }
  return undefined;
}

/** Counts what a taken hold (or its growth) holds against the budgets. */
export function holdBudgets(ask: BudgetAsk, account?: BudgetFigures, key?: BudgetFigures): void {
  if (account) account.held += ask.accountBudgetMicros ?? 0;
  if (key) key.held += ask.keyBudgetMicros ?? 0;
}

/** The `budget.exhausted` event of a refusal for a budget, once a period. */
export function refusalEvent(
  refusal: HoldResult,
  ask: BudgetAsk,
  scope: { accountId: number; keyId: string; account?: BudgetFigures; key?: BudgetFigures },
  createdAt: number,
): AlertRow | undefined {
  if (refusal.ok || (refusal.reason !== "key_budget" && refusal.reason !== "account_budget")) {
    return undefined;
  }
  const onKey = refusal.reason === "key_budget";
  const limit = onKey ? ask.budgets?.key : ask.budgets?.account;
  const figures = onKey ? scope.key : scope.account;
  if (!limit || !figures || !refuseBudget(figures, limit, ask.budgets!.levels)) return undefined;
  const id = onKey ? scope.keyId : scope.accountId;
  return budgetEvent(onKey ? "key" : "account", id, 1_000_000, limit, figures, createdAt, true);
}

/**
 * A settlement's budgets and floors: the hold's budget amounts released, its cost spent,
 * and the events the thresholds and floors crossed announce, added to `events`.
 */
export function settleBudgets(
  s: { accountId: number; keyId: string; createdAt: number; budgets?: SettleBudgets },
  freed: { keyBudget: number; accountBudget: number },
  cost: number,
  account:
    | ({ unlimited: boolean; balance: number; held: number } & { budget: BudgetFigures })
    | undefined,
  key: { budget: BudgetFigures } | undefined,
  events: AlertRow[],
): void {
  const limits = s.budgets;
  const levels = limits?.levels ?? [];
  if (account) {
    const fired = settleBudget(account.budget, limits?.account, freed.accountBudget, cost, levels);
    for (const ppm of fired) {
      events.push(
        budgetEvent("account", s.accountId, ppm, limits!.account!, account.budget, s.createdAt),
      );
    }
    if (limits && limits.floors.length > 0 && !account.unlimited) {
      // Judged on the settled balance, as budgets on settled spend: holds are worst cases.
      const available = account.balance;
      const { fired: floors, announced } = balanceFloors(
        available,
        account.budget.floor,
        limits.floors,
      );
      account.budget.floor = announced;
      for (const floor of floors) {
        events.push(balanceEvent(s.accountId, floor, available, s.createdAt));
      }
    }
  }
  if (key) {
    const fired = settleBudget(key.budget, limits?.key, freed.keyBudget, cost, levels);
    for (const ppm of fired) {
      events.push(budgetEvent("key", s.keyId, ppm, limits!.key!, key.budget, s.createdAt));
    }
  }
}
