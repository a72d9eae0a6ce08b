/** The budget cases (budgets_cases.ts) on a SQLite file. */
import { BUDGET_CASES } from "./budgets_cases.ts";

for (const { name, run } of BUDGET_CASES) {
  Deno.test(`${name} (SQLite)`, () => run(() => Promise.resolve(undefined)));
}
