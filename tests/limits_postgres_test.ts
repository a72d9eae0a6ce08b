/**
 * The limits cases (limits_cases.ts) on PostgreSQL, where the limiter counts in the
 * database: one throwaway cluster for the file, a fresh database for each gateway.
 */
import { LIMITS_CASES } from "./limits_cases.ts";
import { startPostgres } from "./postgres.ts";
import { withScope } from "./support.ts";

Deno.test("limits on PostgreSQL", async (t) => {
  const cluster = await startPostgres();
  try {
    for (const { name, run } of LIMITS_CASES) {
      await t.step(name, () => withScope(run, { database: () => cluster.createDatabase() }));
    }
  } finally {
    await cluster.close();
  }
});
