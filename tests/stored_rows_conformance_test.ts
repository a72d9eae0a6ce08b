/**
 * The stored responses' rows (src/db/stored_responses.ts), one implementation in SQL both
 * dialects run, on a SQLite file and on PostgreSQL alike: a chain read in one recursive
 * query, a turn lasting as long as its continuations, a deleted turn kept for them; and on
 * a SQLite file, the responses of one turn committed together.
 */
import assert from "node:assert/strict";
import { type Db, openDatabase } from "../src/db/database.ts";
import { openSqliteFile } from "../src/db/sqlite_file.ts";
import type { NewStoredResponse } from "../src/db/stored_responses.ts";
import { stepOnEachDialect } from "./dialects.ts";

const NOW = 1_800_000_000_000;

function response(
  id: string,
  { accountId = 1, expiresAt = NOW + 1_000, previous = null as string | null } = {},
): NewStoredResponse {
  return {
    row: {
      id,
      account_id: accountId,
      key_id: "key_1",
      model: "m",
      created_at: NOW,
      expires_at: expiresAt,
      response: JSON.stringify({ id, output: [{ id: `out_${id}` }] }),
      input_items: JSON.stringify([{ id: `in_${id}` }]),
      previous_response_id: previous,
    },
    items: [[`in_${id}`, `{"id":"in_${id}"}`], [`out_${id}`, `{"id":"out_${id}"}`]],
  };
}

const CASES: { name: string; run(db: Db): Promise<void> }[] = [
  {
    name: "find, list items, remove and expire, each the account's own",
    run: async (db: Db) => {
      const rows = await db.storedResponses();
      await rows.insert(response("resp_1"));
      await rows.insert(response("resp_2", { accountId: 2 }));
      await rows.insert(response("resp_3", { expiresAt: NOW }));
      assert.equal((await rows.find(1, "resp_1", NOW))?.id, "resp_1");
      assert.equal(await rows.find(2, "resp_1", NOW), undefined, "another account's");
      assert.equal(await rows.find(1, "resp_3", NOW), undefined, "expired");
      assert.deepEqual(
        await rows.items(1, ["out_resp_1", "in_resp_2", "in_resp_3", "out_resp_1"], NOW),
        new Map([["out_resp_1", '{"id":"out_resp_1"}']]),
        "only the account's items of live responses",
      );
      assert.equal(await rows.remove(2, "resp_1", NOW), false, "not another account's");
      assert.equal(await rows.remove(1, "resp_1", NOW), true);
      assert.equal(await rows.remove(1, "resp_1", NOW), false, "once");
      assert.equal((await rows.items(1, ["in_resp_1"], NOW)).size, 0, "its items go too");
      assert.equal(await rows.expire(NOW, 500), 1);
      assert.equal(await rows.expire(NOW + 1_000, 500), 1, "account 2's, in its time");
      assert.equal(await rows.expire(NOW + 1_000, 500), 0);
    },
  },

  {
    name: "a chain is read first turn first; a turn lasts as long as the turns that continue it",
    run: async (db: Db) => {
      const rows = await db.storedResponses();
      await rows.insert(response("resp_1", { expiresAt: NOW + 10 }));
      await rows.insert(response("resp_2", { expiresAt: NOW + 20, previous: "resp_1" }));
      // A second branch from the first turn, which its sibling's expiry does not reach.
      await rows.insert(response("resp_2b", { expiresAt: NOW + 15, previous: "resp_1" }));
      await rows.insert(response("resp_3", { expiresAt: NOW + 30, previous: "resp_2" }));
      const chain = await rows.chain(1, "resp_3", NOW);
      assert.deepEqual(chain.map((turn) => JSON.parse(turn.response).id), [
        "resp_1",
        "resp_2",
        "resp_3",
      ]);
      assert.deepEqual(await rows.chain(2, "resp_3", NOW), [], "another account's");
      const found = async (id: string, at: number) => (await rows.find(1, id, NOW + at))?.id;
      assert.equal(await found("resp_1", 29), "resp_1", "as long as its latest continuation");
      assert.equal(await found("resp_2", 29), "resp_2");
      assert.equal(await found("resp_2b", 15), undefined, "its own expiry: nothing continues it");
      assert.equal((await rows.items(1, ["out_resp_1"], NOW + 29)).size, 1, "its items too");
      assert.equal(await found("resp_1", 30), undefined);
      // The sweep removes the branch and gives the first turn its continuation's expiry.
      assert.equal(await rows.expire(NOW + 16, 500), 1);
      const expiries = await db.client.execute(
        "SELECT id, expires_at FROM stored_responses ORDER BY id",
      );
      assert.deepEqual(expiries.rows.map((row) => [row.id, Number(row.expires_at) - NOW]), [
        ["resp_1", 30],
        ["resp_2", 20],
        ["resp_3", 30],
      ]);
      assert.equal((await rows.chain(1, "resp_3", NOW + 29)).length, 3);
      assert.equal(await rows.expire(NOW + 30, 500), 3);
    },
  },

  {
    name:
      "a deleted turn stays for the turns that continue it, found no more; a turn that continues a vanished one is no chain",
    run: async (db: Db) => {
      const rows = await db.storedResponses();
      await rows.insert(response("resp_1"));
      await rows.insert(response("resp_2", { previous: "resp_1" }));
      assert.equal(await rows.remove(1, "resp_1", NOW), true);
      assert.equal(await rows.find(1, "resp_1", NOW), undefined);
      assert.deepEqual(await rows.chain(1, "resp_1", NOW), []);
      assert.equal(await rows.remove(1, "resp_1", NOW), false, "deleted once");
      assert.equal((await rows.items(1, ["in_resp_1"], NOW)).size, 0, "its items go");
      assert.equal((await rows.chain(1, "resp_2", NOW)).length, 2, "its continuation is whole");
      // A turn stored while the one it continued was deleted (no continuation yet then).
      await rows.insert(response("resp_x"));
      assert.equal(await rows.remove(1, "resp_x", NOW), true);
      await rows.insert(response("resp_y", { previous: "resp_x" }));
      assert.deepEqual(await rows.chain(1, "resp_y", NOW), []);
    },
  },
];

Deno.test("stored rows conformance", (t) =>
  stepOnEachDialect(t, CASES, async ({ run }, url) => {
    const db = await openDatabase(url);
    try {
      assert.equal((await db.migrate()).error, undefined);
      await run(db);
    } finally {
      await db.close();
    }
  }));

/** A fresh migrated SQLite file; `test` gets the database and the file's path. */
async function withSqlite(test: (db: Db, path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_stored_rows_" });
  const db = await openDatabase(`file:${dir}/tollgate.db`);
  try {
    assert.equal((await db.migrate()).error, undefined);
    await test(db, `${dir}/tollgate.db`);
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("stored rows: the responses kept in one turn commit together, each found by another connection once kept", () =>
  withSqlite(async (db, path) => {
    const rows = await db.storedResponses();
    const other = openSqliteFile(path);
    try {
      const version = async () =>
        Number((await other.client.execute("PRAGMA data_version")).rows[0]!.data_version);
      const before = await version();
      const ids = Array.from({ length: 20 }, (_, i) => `resp_${i}`);
      await Promise.all(ids.map(async (id) => {
        await rows.insert(response(id));
        // Committed when kept: the file itself has it, not only this connection.
        const { rows: found } = await other.client.execute({
          sql: "SELECT id FROM stored_responses WHERE id = ?",
          args: [id],
        });
        assert.equal(found.length, 1, id);
      }));
      assert.equal(await version() - before, 1, "one commit for the turn's twenty responses");
    } finally {
      await other.close();
    }
  }));

Deno.test("stored rows: a response that cannot be written fails alone, the others of its turn are kept", () =>
  withSqlite(async (db) => {
    const rows = await db.storedResponses();
    await rows.insert(response("resp_taken"));
    const results = await Promise.allSettled([
      rows.insert(response("resp_a")),
      rows.insert(response("resp_taken")),
      rows.insert(response("resp_b")),
    ]);
    assert.deepEqual(results.map((result) => result.status), [
      "fulfilled",
      "rejected",
      "fulfilled",
    ]);
    assert.ok(await rows.find(1, "resp_a", NOW));
    assert.ok(await rows.find(1, "resp_b", NOW));
  }));
