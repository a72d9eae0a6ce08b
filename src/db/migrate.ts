/** Applies the embedded migrations in order, once each. */
import type { Client } from "@libsql/client";
import { type Migration, MIGRATIONS } from "../../migrations/index.ts";

/** What a migration run did: the names applied now, or the one that failed. */
export interface MigrationResult {
  applied: string[];
  error?: { name: string; message: string };
}

/** Applies every migration not yet recorded in `_migrations`; returns instead of throwing. */
export async function migrate(
  client: Client,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrationResult> {
  await client.execute(
    "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)",
  );
  const done = new Set(
    (await client.execute("SELECT name FROM _migrations")).rows.map((row) => String(row.name)),
  );
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.name)) continue;
    try {
      const statements = splitStatements(migration.sql).map((sql) => ({ sql, args: [] }));
      statements.push({
        sql: "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
        args: [migration.name, Date.now()] as never[],
      });
      await client.batch(statements, "write");
      applied.push(migration.name);
    } catch (error) {
      return {
        applied,
        error: {
          name: migration.name,
          message: error instanceof Error ? error.message : String(error),
        },
      };
    }
  }
  return { applied };
}

/** Splits a migration file into statements: on `;` at line ends, after removing `--` comments. */
function splitStatements(sql: string): string[] {
  return sql
    .split("\n")
    .map((line) => line.replace(/--.*$/, ""))
    .join("\n")
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
