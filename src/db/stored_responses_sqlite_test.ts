import assert from "node:assert/strict";
import { openDatabase } from "./database.ts";
import type { StoredResponseRow } from "./schema.ts";
import type { SqlClient } from "./sql_client.ts";
import { openSqliteFile } from "./sqlite_file.ts";
import {
  type NewStoredResponse,
  type StoredResponseRows,
  storedResponseRows,
} from "./stored_responses.ts";
import { sqliteStoredResponseRows } from "./stored_responses_sqlite.ts";

const NOW = 1_800_000_000_000;

function response(id: string, accountId = 1, expiresAt = NOW + 1_000): NewStoredResponse {
  const row: StoredResponseRow = {
    id,
    account_id: accountId,
    key_id: "key_1",
    model: "m",
    created_at: NOW,
    expires_at: expiresAt,
    response: JSON.stringify({ id, output: [] }),
    input_items: "[]",
  };
  return { row, items: [[`in_${id}`, `{"id":"in_${id}"}`], [`out_${id}`, `{"id":"out_${id}"}`]] };
}

/** A fresh migrated SQLite file; `test` gets its path and the two kinds of rows on it. */
async function withFile(
  test: (path: string, rows: { name: string; rows: StoredResponseRows }[]) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_stored_rows_" });
  const db = await openDatabase(`file:${dir}/tollgate.db`);
  try {
    assert.equal((await db.migrate()).error, undefined);
    await test(`${dir}/tollgate.db`, [
      { name: "serving (plain SQL)", rows: await db.storedResponses() },
      { name: "query builder", rows: storedResponseRows(db.kysely) },
    ]);
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("stored rows: both kinds find, list items, remove and expire alike", () =>
  withFile(async (_, kinds) => {
    for (const [at, { name, rows }] of kinds.entries()) {
      const id = (n: number) => `resp_${at}_${n}`;
      await rows.insert(response(id(1)));
      await rows.insert(response(id(2), 2));
      await rows.insert(response(id(3), 1, NOW));
      assert.equal((await rows.find(1, id(1), NOW))?.id, id(1), name);
      assert.equal(await rows.find(2, id(1), NOW), undefined, `${name}: another account's`);
      assert.equal(await rows.find(1, id(3), NOW), undefined, `${name}: expired`);
      assert.deepEqual(
        await rows.items(1, [`out_${id(1)}`, `in_${id(2)}`, `in_${id(3)}`, `out_${id(1)}`], NOW),
        new Map([[`out_${id(1)}`, `{"id":"out_${id(1)}"}`]]),
        `${name}: only the account's items of live responses`,
      );
      assert.equal(await rows.remove(2, id(1), NOW), false, `${name}: not another account's`);
      assert.equal(await rows.remove(1, id(1), NOW), true, name);
      assert.equal(await rows.remove(1, id(1), NOW), false, `${name}: once`);
      assert.equal((await rows.items(1, [`in_${id(1)}`], NOW)).size, 0, `${name}: items go too`);
      assert.equal(await rows.expire(NOW, 500), 1, name);
      assert.equal(await rows.expire(NOW + 1_000, 500), 1, `${name}: account 2's, in its time`);
      assert.equal(await rows.expire(NOW + 1_000, 500), 0, name);
    }
  }));

Deno.test("stored rows: the responses kept in one turn commit together, each found by another connection once kept", () =>
  withFile(async (path) => {
    const connection = openSqliteFile(path);
    const other = openSqliteFile(path);
    try {
      let batches = 0;
      const counting: SqlClient = {
        execute: (statement) => connection.client.execute(statement),
        batch: (statements, mode) => (batches++, connection.client.batch(statements, mode)),
      };
      const rows = sqliteStoredResponseRows(counting, () => true);
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
      assert.equal(batches, 1, "one transaction for the turn's twenty responses");
    } finally {
      await other.close();
      await connection.close();
    }
  }));

Deno.test("stored rows: a response that cannot be written fails alone, the others of its batch are kept", () =>
  withFile(async (_, [serving]) => {
    const { rows } = serving!;
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
