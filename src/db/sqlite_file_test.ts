import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { SqliteConnection, Step } from "./sql_client.ts";
import { openSqliteFile } from "./sqlite_file.ts";
import { isSqliteUnavailable } from "./sqlite_errors.ts";
import { DatabaseUnavailableError } from "./store.ts";

/** Runs `fn` on a fresh SQLite file, then closes and removes it. */
async function withFile(fn: (file: SqliteConnection, path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/t.db`;
  const file = openSqliteFile(path);
  try {
    await fn(file, path);
  } finally {
    await file.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("sqlite file: a transaction's writes are decided on its reads; a failure undoes both", async () => {
  await withFile(async (file) => {
    await file.client.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)");
    await file.client.execute("INSERT INTO t (id, v) VALUES (1, 10), (2, 20)");
    /** Moves row `from` to `to`, doubled (null when there is no such row). */
    const double = (from: number, to: number): Step<number | null> => ({
      reads: [{ sql: "DELETE FROM t WHERE id = ? RETURNING v", args: [from] }],
      decide([deleted]) {
        const row = deleted!.rows[0];
        const v = row ? Number(row.v) * 2 : null;
        return {
          writes: [{ sql: "INSERT INTO t (id, v) VALUES (?, ?)", args: [to, v] }],
          value: v,
        };
      },
    });
    assert.equal(await file.transaction(double(1, 3)), 20);
    const rows = async () =>
      (await file.client.execute("SELECT id, v FROM t ORDER BY id")).rows.map((row) => ({
        ...row,
      }));
    assert.deepEqual(await rows(), [{ id: 2, v: 20 }, { id: 3, v: 20 }]);
    // Row 9 is not there: its doubled value is null, which NOT NULL refuses.
    await assert.rejects(file.transaction(double(9, 4)));
    await assert.rejects(file.transaction({
      reads: [{ sql: "DELETE FROM t WHERE id = ? RETURNING v", args: [2] }],
      decide: () => ({
        writes: [{ sql: "INSERT INTO t (id, v) VALUES (5, NULL)", args: [] }],
        value: 0,
      }),
    }));
    assert.deepEqual(await rows(), [{ id: 2, v: 20 }, { id: 3, v: 20 }], "the delete was undone");
  });
});

Deno.test("sqlite file: a failing statement rolls its whole transaction back", async () => {
  await withFile(async (file) => {
    await file.client.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    await assert.rejects(file.client.batch([
      { sql: "INSERT INTO t (v) VALUES (?)", args: ["kept?"] },
      { sql: "INSERT INTO t (v) VALUES (?)", args: [null] },
    ]));
    const { rows } = await file.client.execute("SELECT count(*) AS n FROM t");
    assert.equal(rows[0]?.n, 0);
  });
});

Deno.test("sqlite file: a file locked by another writer reads as unavailable, not as a bug", async () => {
  await withFile(async (file, path) => {
    const other = new DatabaseSync(path);
    try {
      await file.client.execute("CREATE TABLE t (v TEXT)");
      await file.client.execute("PRAGMA busy_timeout = 0");
      other.exec("BEGIN IMMEDIATE");
      const error = await file.client.execute({ sql: "INSERT INTO t VALUES (?)", args: ["x"] })
        .then(() => undefined, (error: unknown) => error);
      assert.ok(error instanceof DatabaseUnavailableError, String(error));
      assert.equal(isSqliteUnavailable(error.cause), true, String(error.cause));
      assert.equal(isSqliteUnavailable(new Error("no such table: t")), false);
    } finally {
      other.close();
    }
  });
});
