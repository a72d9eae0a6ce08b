import assert from "node:assert/strict";
import { openLocalTransactions } from "./local_transaction.ts";
import type { ConditionalStatement } from "./write_queue.ts";

Deno.test("local transactions: a conditional read runs only after a statement that changed nothing", async () => {
  const dir = await Deno.makeTempDir();
  const local = openLocalTransactions(`${dir}/t.db`);
  try {
    await local.run(["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"]);
    const read: ConditionalStatement = {
      onlyIfPreviousChangedNothing: true,
      sql: "SELECT count(*) AS n FROM t",
      args: [],
    };
    const insertIf = (ok: boolean) => ({
      sql: "INSERT INTO t (v) SELECT ? WHERE ?",
      args: ["x", ok ? 1 : 0],
    });
    const [granted, skipped] = await local.run([insertIf(true), read]);
    assert.equal(granted?.rowsAffected, 1);
    assert.deepEqual(skipped, { rowsAffected: 0, rows: [] });
    const [refused, figures] = await local.run([insertIf(false), read]);
    assert.equal(refused?.rowsAffected, 0);
    assert.equal(Number(figures?.rows[0]?.n), 1);
  } finally {
    local.close();
    await Deno.remove(dir, { recursive: true });
  }
});
