/**
 * A shared libSQL server (`libsql://`, `http(s)://`) through the libSQL client. Loaded
 * only for such a URL: a gateway on a SQLite file never pays for the client.
 */
import { createClient } from "@libsql/client";
import { LibsqlDialect } from "@libsql/kysely-libsql";
import type { SqliteConnection } from "./sql_client.ts";

/** Connects to the libSQL server at `url`. */
export function openLibsqlServer(url: string, authToken?: string): SqliteConnection {
  const client = createClient({ url, authToken });
  return {
    client,
    // deno-lint-ignore no-explicit-any
    dialect: () => Promise.resolve(new LibsqlDialect({ client: client as any })),
    // An interactive transaction: the writes are decided on what the reads returned.
    async transaction(reads, decide) {
      const tx = await client.transaction("write");
      try {
        const { writes, value, committed } = decide(
          reads.length > 0 ? await tx.batch(reads) : [],
        );
        if (writes.length > 0) await tx.batch(writes);
        await tx.commit();
        committed?.();
        return value;
      } finally {
        tx.close();
      }
    },
    close: () => client.close(),
  };
}
