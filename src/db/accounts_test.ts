import assert from "node:assert/strict";
import { join } from "node:path";
import { type Db, openDatabase } from "./database.ts";
import {
  createAccount,
  findAccountByName,
  listAccounts,
  setAccountEnabled,
  topUpAccount,
} from "./accounts.ts";

async function withDb(fn: (db: Db) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const db = await openDatabase(`file:${join(dir, "test.db")}`);
  try {
    assert.equal((await db.migrate()).error, undefined);
    await fn(db);
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("createAccount inserts once per name", async () => {
  await withDb(async ({ kysely }) => {
    const alice = await createAccount(kysely, {
      name: "alice",
      balanceMicros: 5_000_000,
      unlimited: false,
      createdAt: 42,
    });
    assert.equal(alice?.name, "alice");
    assert.equal(alice?.balance_micros, 5_000_000);
    assert.equal(alice?.held_micros, 0);
    assert.equal(alice?.enabled, 1);
    assert.equal(alice?.unlimited, 0);
    assert.equal(alice?.created_at, 42);
    const again = await createAccount(kysely, { name: "alice", balanceMicros: 0, unlimited: true });
    assert.equal(again, undefined);
    assert.equal((await findAccountByName(kysely, "alice"))?.balance_micros, 5_000_000);
    assert.equal(await findAccountByName(kysely, "bob"), undefined);
  });
});

Deno.test("topUpAccount adds atomically, even concurrently", async () => {
  await withDb(async ({ kysely }) => {
    await createAccount(kysely, { name: "a", balanceMicros: 100, unlimited: false });
    await Promise.all(Array.from({ length: 10 }, () => topUpAccount(kysely, "a", 1_000)));
    const updated = await topUpAccount(kysely, "a", 1);
    assert.equal(updated?.balance_micros, 10_101);
    assert.equal(await topUpAccount(kysely, "nobody", 1), undefined);
  });
});

Deno.test("setAccountEnabled and listAccounts", async () => {
  await withDb(async ({ kysely }) => {
    await createAccount(kysely, { name: "zed", balanceMicros: 0, unlimited: true });
    await createAccount(kysely, { name: "amy", balanceMicros: 0, unlimited: false });
    assert.equal(await setAccountEnabled(kysely, "zed", false), true);
    assert.equal(await setAccountEnabled(kysely, "nobody", false), false);
    const accounts = await listAccounts(kysely);
    assert.deepEqual(accounts.map((a) => [a.name, a.enabled, a.unlimited]), [
      ["amy", 1, 0],
      ["zed", 0, 1],
    ]);
    assert.equal(await setAccountEnabled(kysely, "zed", true), true);
    assert.equal((await findAccountByName(kysely, "zed"))?.enabled, 1);
  });
});
