import assert from "node:assert/strict";
import { type Db, openDatabase } from "./database.ts";
import { openSqliteFile } from "./sqlite_file.ts";
import type { NewStoredResponse } from "./stored_responses.ts";

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

/** A fresh migrated SQLite file; `test` gets the database and the file's path. */
async function withDb(test: (db: Db, path: string) => Promise<void>) {
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
  withDb(async (db, path) => {
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
  withDb(async (db) => {
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
