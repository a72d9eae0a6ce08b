/**
 * The budget cases (budgets_cases.ts) on PostgreSQL: one throwaway cluster for the file, a
 * fresh database for each gateway.
 */
import { BUDGET_CASES } from "./budgets_cases.ts";
import { startPostgres } from "./postgres.ts";

Deno.test("budgets on PostgreSQL", async (t) => {
  const cluster = await startPostgres();
  try {
    for (const { name, run } of BUDGET_CASES) {
      await t.step(name, () => run(() => cluster.createDatabase()));
    }
  } finally {
    await cluster.close();
  }
});
