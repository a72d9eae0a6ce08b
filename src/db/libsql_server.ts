/**
 * A shared libSQL server (`libsql://`, `http(s)://`) through the libSQL client. Loaded
 * only for such a URL: a gateway on a SQLite file never pays for the client.
 */
import { createClient, type InStatement } from "@libsql/client";
import { LibsqlDialect } from "@libsql/kysely-libsql";
import type { SqlClient, SqliteConnection, SqlResult, SqlStatement } from "./sql_client.ts";
import { sqliteFailure } from "./sqlite_errors.ts";

/** The libSQL client's result as a SqlClient's. */
function resultOf(result: { rowsAffected: number; rows: unknown[] }): SqlResult {
  return { rowsAffected: result.rowsAffected, rows: result.rows as Record<string, unknown>[] };
}

/** Rejects with an unavailable server's error as DatabaseUnavailableError. */
async function guarded<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw sqliteFailure(error);
  }
}

/** Connects to the libSQL server at `url`. */
export function openLibsqlServer(url: string, authToken?: string): SqliteConnection {
  const libsql = createClient({ url, authToken });
  const statement = (s: SqlStatement) => s as InStatement;
  const client: SqlClient = {
    execute: (s) => guarded(libsql.execute(statement(s)).then(resultOf)),
    batch: (statements) =>
      guarded(libsql.batch(statements.map(statement), "write").then((all) => all.map(resultOf))),
  };
  return {
    client,
    // deno-lint-ignore no-explicit-any
    dialect: () => Promise.resolve(new LibsqlDialect({ client: libsql as any })),
    // An interactive transaction: the writes are decided on what the reads returned.
    transaction: ({ reads, decide }) =>
      guarded((async () => {
        const tx = await libsql.transaction("write");
        try {
          const results = reads.length > 0 ? await tx.batch(reads.map(statement)) : [];
          const { writes, value, committed } = decide(results.map(resultOf));
          if (writes.length > 0) await tx.batch(writes.map(statement));
          await tx.commit();
          committed?.();
          return value;
        } finally {
          tx.close();
        }
      })()),
    close: () => libsql.close(),
  };
}
