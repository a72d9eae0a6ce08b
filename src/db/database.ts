/**
 * Opens the database named by a URL: a SQLite file, a libSQL server, or PostgreSQL for
 * several gateway processes. What differs between them is behind `Db`: the typed query
 * builder for everything else, the store for holds, settlement and recovery, and the
 * migrations of each dialect.
 */
import { createClient } from "@libsql/client";
import { Kysely } from "kysely";
import { LibsqlDialect } from "@libsql/kysely-libsql";
import type { Database } from "./schema.ts";
import { openLocalTransactions } from "./local_transaction.ts";
import { migrate, type MigrationResult } from "./migrate.ts";
import { createSqliteStore, isSqliteUnavailable } from "./sqlite_store.ts";
import type { Store } from "./store.ts";
import { clientTransaction, createWriteQueue } from "./write_queue.ts";

/** Which SQL a database speaks: SQLite (files and libSQL servers) or PostgreSQL. */
export type DatabaseKind = "sqlite" | "postgres";

/** An open database: the typed query builder, the store of the request path, migrations. */
export interface Db {
  kind: DatabaseKind;
  kysely: Kysely<Database>;
  /** Holds, settlement, instances and recovery, atomic in the database. */
  store: Store;
  /** Whether an error of this database means it is unavailable for now (not a bug). */
  isUnavailable(error: unknown): boolean;
  /** Applies this dialect's embedded migrations not applied yet. */
  migrate(): Promise<MigrationResult>;
  close(): Promise<void>;
}

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
 * `postgres://`/`postgresql://` (PostgreSQL) URLs.
 */
export async function openDatabase(url: string, authToken?: string): Promise<Db> {
  // The PostgreSQL driver loads only for a PostgreSQL URL: a SQLite gateway never pays for it.
  if (isPostgresUrl(url)) return (await import("./postgres.ts")).openPostgres(url);
  // One connection for a file: the pragmas below are per connection, and SQLite
  // takes one writer at a time anyway.
  const client = createClient({
    url,
    authToken,
    concurrency: url.startsWith("file:") ? 1 : undefined,
  });
  if (url.startsWith("file:")) {
    // WAL lets the CLI write while the server reads; NORMAL sync is durable
    // across a process crash (kill -9), which is what settlement must survive.
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA synchronous = NORMAL");
    await client.execute("PRAGMA busy_timeout = 5000");
    await client.execute("PRAGMA foreign_keys = ON");
  }
  // deno-lint-ignore no-explicit-any
  const kysely = new Kysely<Database>({ dialect: new LibsqlDialect({ client: client as any }) });
  const local = url.startsWith("file:") ? openLocalTransactions(filePath(url)) : undefined;
  const write = createWriteQueue(local?.run ?? clientTransaction(client));
  return {
    kind: "sqlite",
    kysely,
    store: createSqliteStore(client, write),
    isUnavailable: isSqliteUnavailable,
    migrate: () => migrate(client),
    async close() {
      local?.close();
      await kysely.destroy();
      client.close();
    },
  };
}
