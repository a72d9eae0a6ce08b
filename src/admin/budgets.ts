/**
 * Budgets in the admin service: the JSON fields of a key's or an account's budget (the one
 * in force, where it comes from, what this period spent and held, when it renews), and the
 * columns a change of `budget_usd` / `budget_period` writes. `budget_usd` is an amount (the
 * scope's own budget), null (no budget at all) or "default" (the config's again).
 */
import { BUDGET_PERIODS, type BudgetPeriod } from "../clock/budget_period.ts";
import { budgetInForce, budgetSettings, limitAt, type OwnBudget } from "../billing/budgets.ts";
import { microsToUsd } from "../billing/money.ts";
import type { BudgetConfig } from "../config/budgets_schema.ts";
import type { Config } from "../config/schema.ts";
import { spentIn } from "../db/budget_thresholds.ts";
import { invalidField } from "./errors.ts";
import { usdField } from "./fields.ts";

/** A budget as `key list --json` and `account list --json` show it (design.md). */
export interface BudgetJson {
  budget_usd: number | null;
  budget_period: BudgetPeriod | null;
  budget_source: "own" | "default" | null;
  /** This period's spend, held spend included. */
  budget_spent_usd: number;
  budget_renews_at: string | null;
}

/** What a budget change says: the API's fields, the CLI's `--budget` and `--budget-period`. */
export interface BudgetInput {
  budget_usd?: number | string | null;
  budget_period?: string;
}

/** A budget's stored columns. */
export interface BudgetColumns {
  budget_mode: string | null;
  budget_micros: number | null;
  budget_period: string | null;
  budget_period_start: number;
  budget_spent_micros: number;
  budget_held_micros: number;
}

/** The own budget of stored columns. */
export function ownBudgetOf(
  row: Pick<BudgetColumns, "budget_mode" | "budget_micros" | "budget_period">,
): OwnBudget {
  const mode = row.budget_mode === "own" || row.budget_mode === "none" ? row.budget_mode : null;
  return {
    mode,
    micros: row.budget_micros === null ? null : Number(row.budget_micros),
    period: row.budget_period,
  };
}

/** The budget fields of a scope whose default is `fallback`, at `now`. */
export function budgetJson(
  row: BudgetColumns,
  fallback: BudgetConfig | undefined,
  config: Config,
  now: number,
): BudgetJson {
  const budget = budgetInForce(ownBudgetOf(row), fallback);
  if (!budget) {
    return {
      budget_usd: null,
      budget_period: null,
      budget_source: null,
      budget_spent_usd: microsToUsd(Number(row.budget_held_micros)),
      budget_renews_at: null,
    };
  }
  const limit = limitAt(budget, budgetSettings(config), now);
  const spent = spentIn({
    start: Number(row.budget_period_start),
    spent: Number(row.budget_spent_micros),
  }, limit.start);
  return {
    budget_usd: microsToUsd(budget.micros),
    budget_period: budget.period,
    budget_source: budget.source,
    budget_spent_usd: microsToUsd(spent + Number(row.budget_held_micros)),
    budget_renews_at: limit.end === null ? null : new Date(limit.end).toISOString(),
  };
}

/** A period as given; 400 naming `budget_period` otherwise. */
function periodField(value: string): BudgetPeriod {
  if ((BUDGET_PERIODS as readonly string[]).includes(value)) return value as BudgetPeriod;
  throw invalidField(
    "budget_period",
    `Invalid budget_period "${value}": give one of ${BUDGET_PERIODS.join(", ")}.`,
  );
}

/**
 * The columns a change writes, from the scope's current setting and default; undefined
 * when the input changes no budget.
 */
export function budgetChanges(
  input: BudgetInput,
  current: OwnBudget,
  fallback: BudgetConfig | undefined,
): Pick<BudgetColumns, "budget_mode" | "budget_micros" | "budget_period"> | undefined {
  const { budget_usd: usd, budget_period: periodText } = input;
  if (usd === undefined && periodText === undefined) return undefined;
  const period = periodText === undefined ? undefined : periodField(periodText);
  if (usd === null || usd === "none") {
    if (period !== undefined) {
      throw invalidField("budget_period", "Give budget_period with an amount, not with no budget.");
    }
    return { budget_mode: "none", budget_micros: null, budget_period: null };
  }
  if (usd === "default") {
    if (period !== undefined) {
      throw invalidField(
        "budget_period",
        "The default budget's period is the config's: give budget_period with an amount.",
      );
    }
    return { budget_mode: null, budget_micros: null, budget_period: null };
  }
  const inForce = budgetInForce(current, fallback);
  if (usd === undefined) {
    if (!inForce) {
      throw invalidField(
        "budget_period",
        "There is no budget to change the period of: give budget_usd as well.",
      );
    }
    return { budget_mode: "own", budget_micros: inForce.micros, budget_period: period! };
  }
  const micros = usdField("budget_usd", usd);
  return {
    budget_mode: "own",
    budget_micros: micros,
    budget_period: period ?? inForce?.period ?? "month",
  };
}
