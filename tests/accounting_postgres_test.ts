/**
 * The accounting cases (accounting_cases.ts) on PostgreSQL: one throwaway cluster for the
 * file, a fresh database for each gateway.
 */
import { ACCOUNTING_CASES } from "./accounting_cases.ts";
import { startPostgres } from "./postgres.ts";

Deno.test("accounting on PostgreSQL", async (t) => {
  const cluster = await startPostgres();
  try {
    for (const { name, run } of ACCOUNTING_CASES) {
      await t.step(name, () => run(() => cluster.createDatabase()));
    }
  } finally {
    await cluster.close();
  }
});
