/**
 * Opens the database named by a URL: a SQLite file, a libSQL server, or PostgreSQL for
 * several gateway processes. What differs between them is behind `Db`: the typed query
 * builder for everything else, the store for holds, settlement and recovery, and the
 * migrations of each dialect.
 */
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";
import { migrate } from "./migrate.ts";
import type { Db, ServingDb } from "./serving_db.ts";
import type { SqliteConnection, SqlStatement } from "./sql_client.ts";
import { openSqliteFile } from "./sqlite_file.ts";
import { isSqliteUnavailable } from "./sqlite_errors.ts";
import { createSqliteStore } from "./sqlite_store.ts";
import { DatabaseUnavailableError } from "./store.ts";
import { storedResponseRows } from "./stored_responses.ts";
import { createBatchQueue } from "./write_queue.ts";

// What an open database is lives in serving_db.ts, which postgres.ts (loaded from here)
// builds too; those who open a database here take its types from here.
export type { DatabaseKind, Db, ServingDb } from "./serving_db.ts";

/** The file path of a `file:` URL (`file:rel.db`, `file:///abs.db`), without query options. */
export function filePath(url: string): string {
  return url.replace(/^file:(\/\/(?=\/))?/, "").replace(/\?.*$/, "");
}

/** Whether a database URL names a PostgreSQL server. */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/**
 * Opens `file:` (embedded SQLite), `libsql://`/`http(s)://` (libSQL server) or
 * `postgres://`/`postgresql://` (PostgreSQL) URLs, with the query builder loaded.
 */
export async function openDatabase(url: string, authToken?: string): Promise<Db> {
  const db = await openServingDatabase(url, authToken);
  return { ...db, kysely: await db.queries() };
}

/** Opens a database URL as `openDatabase` does, leaving the query builder for later. */
export async function openServingDatabase(url: string, authToken?: string): Promise<ServingDb> {
  // The PostgreSQL driver loads only for a PostgreSQL URL: a SQLite gateway never pays for it.
  if (isPostgresUrl(url)) return (await import("./postgres.ts")).openPostgres(url);
  // The libSQL client loads only for a libSQL server: a file is served by the runtime's SQLite.
  const path = url.startsWith("file:") ? filePath(url) : undefined;
  const sqlite: SqliteConnection = path !== undefined
    ? openSqliteFile(path)
    : (await import("./libsql_server.ts")).openLibsqlServer(url, authToken);
  // A file's serving process journals its holds beside it (hold_journal.ts).
  const journal = path && path !== ":memory:" ? `${path}-holds` : undefined;
  const store = createSqliteStore(sqlite, { journal });
  let kysely: Promise<Kysely<Database>> | undefined;
  // The responses kept in one turn commit together (write_queue.ts); a failed batch is
  // written response by response, unless the database is unavailable.
  const write = createBatchQueue((statements: SqlStatement[]) => sqlite.client.batch(statements), {
    retryAlone: (error) => !(error instanceof DatabaseUnavailableError),
  });
  const storedResponses = storedResponseRows(sqlite.client, write);
  return {
    kind: "sqlite",
    client: sqlite.client,
    store,
    isUnavailable: isSqliteUnavailable,
    migrate: () => migrate(sqlite.client),
    queries: () =>
      kysely ??= (async () => {
        const { Kysely } = await import("kysely");
        return new Kysely<Database>({ dialect: await sqlite.dialect() });
      })(),
    storedResponses: () => Promise.resolve(storedResponses),
    async close() {
      if (kysely) await (await kysely).destroy();
      store.close();
      await sqlite.close();
    },
  };
}
