/**
 * Conformance cases of the database layer, each run as a test step on a fresh SQLite file
 * and on a fresh database of one throwaway PostgreSQL cluster (tests/postgres.ts).
 */
import { startPostgres } from "./postgres.ts";

/** Runs `run` for each case on each dialect, as steps of `t` named `{dialect}: {case}`. */
export async function stepOnEachDialect<Case extends { name: string }>(
  t: Deno.TestContext,
  cases: readonly Case[],
  run: (testCase: Case, url: string) => Promise<void>,
): Promise<void> {
  const cluster = await startPostgres();
  const dir = await Deno.makeTempDir({ prefix: "tollgate_dialects_" });
  let files = 0;
  const fresh: Record<string, () => Promise<string>> = {
    sqlite: () => Promise.resolve(`file:${dir}/db_${++files}.db`),
    postgres: () => cluster.createDatabase(),
  };
  try {
    for (const [dialect, url] of Object.entries(fresh)) {
      for (const testCase of cases) {
        await t.step(`${dialect}: ${testCase.name}`, async () => run(testCase, await url()));
      }
    }
  } finally {
    await cluster.close();
    await Deno.remove(dir, { recursive: true });
  }
}
