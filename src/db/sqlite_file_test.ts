import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import type { ConditionalStatement, SqliteConnection } from "./sql_client.ts";
import { openSqliteFile } from "./sqlite_file.ts";
import { isSqliteUnavailable } from "./sqlite_store.ts";

/** Runs `fn` on a fresh SQLite file, then closes and removes it. */
async function withFile(fn: (file: SqliteConnection, path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/t.db`;
  const file = openSqliteFile(path);
  try {
    await fn(file, path);
  } finally {
    file.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("sqlite file: a conditional read runs only after a statement that changed nothing", async () => {
  await withFile(async (file) => {
    file.transactions(["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"]);
    const read: ConditionalStatement = {
      onlyIfPreviousChangedNothing: true,
      sql: "SELECT count(*) AS n FROM t",
      args: [],
    };
    const insertIf = (ok: boolean) => ({
      sql: "INSERT INTO t (v) SELECT ? WHERE ?",
      args: ["x", ok ? 1 : 0],
    });
    const [granted, skipped] = await file.transactions([insertIf(true), read]);
    assert.equal(granted?.rowsAffected, 1);
    assert.deepEqual(skipped, { rowsAffected: 0, rows: [] });
    const [refused, figures] = await file.transactions([insertIf(false), read]);
    assert.equal(refused?.rowsAffected, 0);
    assert.equal(Number(figures?.rows[0]?.n), 1);
  });
});

Deno.test("sqlite file: a failing statement rolls its whole transaction back", async () => {
  await withFile(async (file) => {
    await file.client.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
    await assert.rejects(file.client.batch([
      { sql: "INSERT INTO t (v) VALUES (?)", args: ["kept?"] },
      { sql: "INSERT INTO t (v) VALUES (?)", args: [null] },
    ], "write"));
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
      assert.ok(
        error instanceof Error,
        "the write must fail while the other writer holds the lock",
      );
      assert.equal(isSqliteUnavailable(error), true, String(error));
      assert.equal(isSqliteUnavailable(new Error("no such table: t")), false);
    } finally {
      other.close();
    }
  });
});
