/** The budget flags of `key create|update` and `account create|update`. */
import { BUDGET_PERIODS } from "../clock/budget_period.ts";
import type { BudgetInput } from "../admin/budgets.ts";
import type { Flag } from "./command.ts";
import { usageError } from "./output.ts";
import { parseUsdArg } from "./values.ts";

/** `--budget` and `--budget-period`. */
export const BUDGET_FLAGS = {
  budget: {
    type: "string",
    value: "USD|none|default",
    help: "a budget in USD each period; none: no budget; default: the config's",
  },
  "budget-period": {
    type: "string",
    value: "day|week|month|total",
    help: "how often the budget renews (total: never; default month)",
  },
} as const satisfies Record<string, Flag>;

/** The budget fields the flags give, each checked (bad usage otherwise). */
export function budgetFields(
  values: { budget?: string; "budget-period"?: string },
  usage: string,
): BudgetInput {
  const fields: BudgetInput = {};
  const { budget } = values;
  if (budget !== undefined) {
    if (budget === "none") fields.budget_usd = null;
    else if (budget === "default") fields.budget_usd = "default";
    else {
      parseUsdArg(budget, "--budget", usage);
      fields.budget_usd = budget;
    }
  }
  const period = values["budget-period"];
  if (period !== undefined) {
    if (!(BUDGET_PERIODS as readonly string[]).includes(period)) {
      throw usageError(
        `Invalid --budget-period "${period}": give one of ${BUDGET_PERIODS.join(", ")}`,
        usage,
      );
    }
    fields.budget_period = period;
  }
  return fields;
}
