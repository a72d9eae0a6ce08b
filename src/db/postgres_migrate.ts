/**
 * Applies the embedded PostgreSQL migrations in order, once each. Several nodes may start
 * at once: an advisory lock lets one migrate while the others wait, then find nothing
 * left to do. Each migration runs in its own transaction (PostgreSQL's DDL is
 * transactional), so a failed one leaves no half-made schema behind.
 */
import type { Pool } from "pg";
import { type Migration, POSTGRES_MIGRATIONS } from "../../migrations/index.ts";
import type { MigrationResult } from "./migrate.ts";

/** The advisory lock's key: any constant that other applications are unlikely to use. */
const MIGRATION_LOCK = 7_460_417_001;

/** Applies every migration not yet recorded in `_migrations`; returns instead of throwing. */
export async function migratePostgres(
  pool: Pool,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<MigrationResult> {
  const applied: string[] = [];
  let current = "(connect)";
  const client = await pool.connect().catch((error) => error as Error);
  if (client instanceof Error) {
    return { applied, error: { name: current, message: client.message } };
  }
  let failed = false;
  try {
    current = "(lock)";
    // A session lock, held across the transactions below and released in `finally`.
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)",
    );
    const done = new Set(
      (await client.query<{ name: string }>("SELECT name FROM _migrations")).rows.map((row) =>
        row.name
      ),
    );
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      current = migration.name;
      await client.query("BEGIN");
      try {
        // A query without parameters may hold many statements, function bodies included.
        await client.query(migration.sql);
        await client.query(
          "INSERT INTO _migrations (name, applied_at) VALUES ($1, floor(extract(epoch FROM now()) * 1000))",
          [migration.name],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
      applied.push(migration.name);
    }
    return { applied };
  } catch (error) {
    failed = true;
    return {
      applied,
      error: { name: current, message: error instanceof Error ? error.message : String(error) },
    };
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    // A connection that failed may be broken: the pool drops it instead of reusing it.
    client.release(failed);
  }
}
