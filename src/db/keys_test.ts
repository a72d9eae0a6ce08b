import assert from "node:assert/strict";
import { join } from "node:path";
import { type Db, openDatabase } from "./database.ts";
import { createAccount } from "./accounts.ts";
import { createKey, listKeys, revokeKey, setKeyEnabled } from "./keys.ts";
import type { NewApiKey } from "./schema.ts";

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

function newKey(id: string, accountId: number, createdAt: number): NewApiKey {
  return {
    id,
    hash: `hash-${id}`,
    prefix: "sk-abcdefg",
    account_id: accountId,
    group_name: "default",
    name: null,
    enabled: 1,
    revoked: 0,
    expires_at: null,
    quota_tokens: null,
    models: JSON.stringify(["echo"]),
    allow_ips: null,
    created_at: createdAt,
  };
}

Deno.test("createKey, listKeys and the store's key lookup join the account", async () => {
  await withDb(async ({ kysely, store }) => {
    const alice = await createAccount(kysely, { name: "alice", balanceMicros: 0, unlimited: true });
    const bob = await createAccount(kysely, { name: "bob", balanceMicros: 0, unlimited: false });
    assert.ok(alice && bob);
    assert.equal(await store.hasKeys(), false);
    const created = await createKey(kysely, newKey("key_a", alice.id, 1));
    assert.equal(created.used_tokens, 0);
    assert.equal(created.held_tokens, 0);
    await createKey(kysely, newKey("key_b", bob.id, 2));
    await createKey(kysely, newKey("key_c", alice.id, 3));
    assert.equal(await store.hasKeys(), true);

    const all = await listKeys(kysely);
    assert.deepEqual(all.map((k) => [k.id, k.account_name]), [
      ["key_a", "alice"],
      ["key_b", "bob"],
      ["key_c", "alice"],
    ]);
    const alices = await listKeys(kysely, { accountName: "alice" });
    assert.deepEqual(alices.map((k) => k.id), ["key_a", "key_c"]);
    assert.deepEqual(await listKeys(kysely, { accountName: "nobody" }), []);

    const found = await store.findKey("hash-key_b");
    assert.equal(found?.id, "key_b");
    assert.equal(found?.account_name, "bob");
    assert.equal(found?.account_enabled, 1);
    assert.equal(found?.account_unlimited, 0);
    assert.equal(found?.models, '["echo"]');
    assert.equal(await store.findKey("nope"), undefined);
  });
});

Deno.test("a revoked key can be disabled but never enabled", async () => {
  await withDb(async ({ kysely, store }) => {
    const account = await createAccount(kysely, { name: "a", balanceMicros: 0, unlimited: true });
    assert.ok(account);
    await createKey(kysely, newKey("key_a", account.id, 1));
    assert.equal(await setKeyEnabled(kysely, "key_a", false), "updated");
    assert.equal((await store.findKey("hash-key_a"))?.enabled, 0);
    assert.equal(await setKeyEnabled(kysely, "key_a", true), "updated");
    assert.equal(await setKeyEnabled(kysely, "key_zzz", true), "not_found");

    assert.equal(await revokeKey(kysely, "key_a"), true);
    assert.equal(await revokeKey(kysely, "key_zzz"), false);
    const revoked = await store.findKey("hash-key_a");
    assert.equal(revoked?.revoked, 1);
    assert.equal(revoked?.enabled, 0);
    assert.equal(await setKeyEnabled(kysely, "key_a", true), "revoked");
    assert.equal((await store.findKey("hash-key_a"))?.enabled, 0);
    assert.equal(await setKeyEnabled(kysely, "key_a", false), "updated");
  });
});
