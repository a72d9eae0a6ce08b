/**
 * The bench's accounts and keys, made in a process of their own (as the CLI makes them)
 * so that the bench's tollgate never loads what only key management needs: migrates the
 * SQLite file, creates an unlimited and a funded account, and prints the secrets of
 * their keys as `{"unpricedKey","pricedKey","limitedKey"}`.
 *
 * Run by bench/tollgate_server.ts: `deno run -A bench/bench_keys.ts DB_PATH`.
 */
import { issueKey } from "../src/auth/issue_key.ts";
import { usdToMicros } from "../src/billing/money.ts";
import { createAccount } from "../src/db/accounts.ts";
import { openDatabase } from "../src/db/database.ts";

if (import.meta.main) {
  const [dbPath] = Deno.args;
  if (!dbPath) throw new Error("Usage: bench_keys.ts DB_PATH");
  const db = await openDatabase(`file:${dbPath}`);
  try {
    const migration = await db.migrate();
    if (migration.error) throw new Error(migration.error.message);
    const createdAt = Date.now();
    const unlimited = await createAccount(db.kysely, {
      name: "bench-unlimited",
      balanceMicros: 0,
      unlimited: true,
      createdAt,
    });
    const funded = await createAccount(db.kysely, {
      name: "bench-funded",
      balanceMicros: usdToMicros("1000000"),
      unlimited: false,
      createdAt,
    });
    const key = async (accountId: number, group: string) =>
      (await issueKey(db.kysely, { accountId, group, createdAt })).secret;
    console.log(JSON.stringify({
      unpricedKey: await key(unlimited!.id, "default"),
      pricedKey: await key(funded!.id, "default"),
      limitedKey: await key(funded!.id, "limited"),
    }));
  } finally {
    await db.close();
  }
}
