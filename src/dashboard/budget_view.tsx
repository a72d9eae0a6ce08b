/**
 * Budgets on the dashboard: a key's or an account's budget as facts (spent this period of
 * its limit, when it renews, where it comes from), and the budget fields of the forms.
 */
import type { FC } from "hono/jsx";
import type { BudgetJson } from "../admin/budgets.ts";
import { Time } from "./figures.tsx";
import { usd } from "./format.ts";

/** A budget's facts, for a `<dl class="fields">`. */
export const BudgetFacts: FC<{ budget: Partial<BudgetJson> }> = ({ budget }) => {
  if (budget.budget_usd === undefined) return null;
  if (budget.budget_usd === null) {
    return (
      <>
        <dt>Budget</dt>
        <dd data-figure="budget">none</dd>
      </>
    );
  }
  const per = budget.budget_period === "total" ? "in all" : `a ${budget.budget_period}`;
  const spent = budget.budget_spent_usd ?? 0;
  const share = budget.budget_usd > 0 ? Math.min(100, (spent / budget.budget_usd) * 100) : 100;
  return (
    <>
      <dt>Budget</dt>
      <dd data-figure="budget">
        {usd(spent)} of {usd(budget.budget_usd)} {per}
        {budget.budget_source === "default" && " (default)"}
        <meter min={0} max={100} low={80} high={95} optimum={0} value={share}>
          {share.toFixed(0)}%
        </meter>
      </dd>
      <dt>Renews</dt>
      <dd data-figure="budget_renews_at">
        {budget.budget_renews_at === null ? "never" : <Time at={budget.budget_renews_at} />}
      </dd>
    </>
  );
};

/** What a budget field shows: an own amount, "none", or empty for the default. */
export function budgetValue(budget: Partial<BudgetJson>): Record<string, string> {
  return {
    budget_usd: budget.budget_source === "own"
      ? String(budget.budget_usd)
      : budget.budget_source === null
      ? "none"
      : "",
    budget_period: budget.budget_source === "own" ? budget.budget_period ?? "" : "",
  };
}

/** The budget fields of a key's or an account's form. */
export const BudgetFields: FC<{ values: Record<string, string> }> = ({ values }) => (
  <>
    <label>
      Budget (USD)
      <input
        type="text"
        name="budget_usd"
        value={values.budget_usd}
        placeholder="default (or none)"
        inputmode="decimal"
      />
    </label>
    <label>
      Budget period
      <select name="budget_period">
        {["", "day", "week", "month", "total"].map((period) => (
          <option value={period} selected={period === (values.budget_period ?? "")}>
            {period === "" ? "(as set)" : period}
          </option>
        ))}
      </select>
    </label>
  </>
);
