/** Applies the embedded migrations in order, once each. */
import type { SqlClient, SqlStatement } from "./sql_client.ts";
import { type Migration, MIGRATIONS } from "../../migrations/index.ts";

/** What a migration run did: the names applied now, or the one that failed. */
export interface MigrationResult {
  applied: string[];
  error?: { name: string; message: string };
}

/** Applies every migration not yet recorded in `_migrations`; returns instead of throwing. */
export async function migrate(
  client: SqlClient,
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
      const statements: SqlStatement[] = splitStatements(migration.sql).map((sql) => ({
        sql,
        args: [],
      }));
      statements.push({
        sql: "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
        args: [migration.name, Date.now()],
      });
      await client.batch(statements);
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

/**
 * Splits a migration file into statements: each ends with `;` at a line end, except
 * that a `CREATE TRIGGER` runs to its `END;` line. `--` comments are removed first.
 */
function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  for (const raw of sql.split("\n")) {
    const line = raw.replace(/--.*$/, "").trimEnd();
    if (line.trim() === "" && current.length === 0) continue;
    current.push(line);
    const text = current.join("\n").trim();
    const inTrigger = /^CREATE\s+TRIGGER\b/i.test(text);
    if (inTrigger ? /^\s*END;$/i.test(line) : line.endsWith(";")) {
      statements.push(text.replace(/;$/, ""));
      current = [];
    }
  }
  const rest = current.join("\n").trim();
  if (rest) statements.push(rest);
  return statements;
}
