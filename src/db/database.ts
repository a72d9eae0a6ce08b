/** Opens the database named by a URL: a SQLite file or a libSQL server. */
import { type Client, createClient } from "@libsql/client";
import { Kysely } from "kysely";
import { LibsqlDialect } from "@libsql/kysely-libsql";
import type { Database } from "./schema.ts";
import { openLocalTransactions } from "./local_transaction.ts";
import { clientTransaction, createWriteQueue, type Write } from "./write_queue.ts";

/** An open database: the typed query builder, the raw client, and the request path's writes. */
export interface Db {
  kysely: Kysely<Database>;
  client: Client;
  /** Group-committed writes for holds and settlement (prepared statements on a file). */
  write: Write;
  close(): Promise<void>;
}

/** The file path of a `file:` URL (`file:rel.db`, `file:///abs.db`), without query options. */
export function filePath(url: string): string {
  return url.replace(/^file:(\/\/(?=\/))?/, "").replace(/\?.*$/, "");
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
  const local = url.startsWith("file:") ? openLocalTransactions(filePath(url)) : undefined;
  return {
    kysely,
    client,
    write: createWriteQueue(local?.run ?? clientTransaction(client)),
    async close() {
      local?.close();
      await kysely.destroy();
      client.close();
    },
  };
}
