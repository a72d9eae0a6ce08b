/** Opens the database named by a URL: a SQLite file or a libSQL server. */
import { type Client, createClient } from "@libsql/client";
import { Kysely } from "kysely";
import { LibsqlDialect } from "@libsql/kysely-libsql";
import type { Database } from "./schema.ts";

/** An open database: the typed query builder and the raw client it runs on. */
export interface Db {
  kysely: Kysely<Database>;
  client: Client;
  close(): Promise<void>;
}

/** Opens `file:` (embedded SQLite) or `libsql://`/`http(s)://` (libSQL server) URLs. */
export async function openDatabase(url: string, authToken?: string): Promise<Db> {
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
  return {
    kysely,
    client,
    async close() {
      await kysely.destroy();
      client.close();
    },
  };
}
