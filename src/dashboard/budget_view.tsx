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
  return (
    <>
      <dt>Budget</dt>
      <dd data-figure="budget">
        <BudgetSpent budget={budget} />
      </dd>
      {budget.budget_usd !== null && (
        <>
          <dt>Renews</dt>
          <dd data-figure="budget_renews_at">
            <BudgetRenews budget={budget} />
          </dd>
        </>
      )}
    </>
  );
};

/** A budget in a table's cell: what is spent of it, and when it renews. */
export const BudgetCell: FC<{ budget: Partial<BudgetJson> }> = ({ budget }) => {
  if (budget.budget_usd === undefined) return null;
  return (
    <>
      <div data-figure="budget">
        <BudgetSpent budget={budget} />
      </div>
      {budget.budget_usd !== null && (
        <div class="muted">
          renews{" "}
          <span data-figure="budget_renews_at">
            <BudgetRenews budget={budget} />
          </span>
        </div>
      )}
    </>
  );
};

/** `$1.20 of $5.00 a week (default)` with a meter, or "none". */
const BudgetSpent: FC<{ budget: Partial<BudgetJson> }> = ({ budget }) => {
  if (budget.budget_usd === null || budget.budget_usd === undefined) return <>none</>;
  const per = budget.budget_period === "total" ? "in all" : `a ${budget.budget_period}`;
  const spent = budget.budget_spent_usd ?? 0;
  const share = budget.budget_usd > 0 ? Math.min(100, (spent / budget.budget_usd) * 100) : 100;
  return (
    <>
      {usd(spent)} of {usd(budget.budget_usd)} {per}
      {budget.budget_source === "default" && " (default)"}
      <meter min={0} max={100} low={80} high={95} optimum={0} value={share}>
        {share.toFixed(0)}%
      </meter>
    </>
  );
};

/** When the budget's period renews: a time, or "never" for a budget in all. */
const BudgetRenews: FC<{ budget: Partial<BudgetJson> }> = ({ budget }) =>
  budget.budget_renews_at === null || budget.budget_renews_at === undefined
    ? <>never</>
    : <Time at={budget.budget_renews_at} />;

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
