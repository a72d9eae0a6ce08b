/**
 * The SQLite store through real files: a hold is in the file once taken (the crash window
 * of design.md's invariant), and a hold is decided on the balance as every process last
 * changed it.
 */
import assert from "node:assert/strict";
import { recoverHolds } from "../src/billing/recovery.ts";
import { benchHold, fundedTarget } from "../bench/store_rows.ts";
import { type Db, openDatabase } from "../src/db/database.ts";

async function accountOf(db: Db, id: number) {
  return await db.kysely.selectFrom("accounts").selectAll().where("id", "=", id)
    .executeTakeFirstOrThrow();
}

Deno.test("sqlite store: a hold taken when the server dies is in the file, and is interrupted at the next start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_sqlite_store_" });
  const crashed = await Deno.makeTempDir({ prefix: "tollgate_crashed_" });
  const db = await openDatabase(`file:${dir}/t.db`);
  const target = await fundedTarget(db);
  const server = { id: "inst_server", host: "test-host", pid: 1, heartbeatAt: Date.now() };
  await db.store.heartbeat(server);
  const hold = { ...benchHold(target), instanceId: server.id };
  assert.deepEqual(await db.store.takeHold(hold), { ok: true });
  // The files as a kill -9 would leave them now: the hold resolved, so its request may be
  // upstream already.
  for (const suffix of ["", "-wal"]) {
    Deno.copyFileSync(`${dir}/t.db${suffix}`, `${crashed}/t.db${suffix}`);
  }
  await db.close();

  const restarted = await openDatabase(`file:${crashed}/t.db`);
  try {
    const released = await recoverHolds(restarted, {
      id: "inst_restarted",
      host: server.host,
      pid: 2,
      isProcessAlive: (pid) => pid === 2,
    }, Date.now());
    assert.equal(released, 1);
    const rows = await restarted.kysely.selectFrom("ledger").selectAll().execute();
    assert.deepEqual(
      rows.map((row) => [row.request_id, row.status, row.estimated, row.cost_micros]),
      [[hold.requestId, "interrupted", 1, hold.inputCostMicros]],
    );
    const account = await accountOf(restarted, target.accountId);
    assert.equal(account.held_micros, 0);
    assert.equal(account.balance_micros, 1_000_000_000_000 - hold.inputCostMicros);
  } finally {
    await restarted.close();
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(crashed, { recursive: true });
  }
});

Deno.test("sqlite store: a hold sees the balance as another process or the server's own connection last changed it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_sqlite_store_" });
  const url = `file:${dir}/t.db`;
  const db = await openDatabase(url);
  const cli = await openDatabase(url);
  const target = await fundedTarget(db);
  const setBalance = (on: Db, micros: number) =>
    on.kysely.updateTable("accounts").set({ balance_micros: micros })
      .where("id", "=", target.accountId).execute();
  const takeOne = () => db.store.takeHold(benchHold(target));
  const HALF_LEFT = { ok: false, reason: "balance", availableMicros: 500 };
  try {
    await setBalance(db, 1_500);
    // Each hold holds 1,000: the second finds 500 left.
    assert.deepEqual(await takeOne(), { ok: true });
    assert.deepEqual(await takeOne(), HALF_LEFT);
    // A top-up from another process (the CLI) counts at once.
    await setBalance(cli, 2_500);
    assert.deepEqual(await takeOne(), { ok: true });
    assert.deepEqual(await takeOne(), HALF_LEFT);
    // So does a change through the server's own connection.
    await setBalance(db, 10_000);
    assert.deepEqual(await takeOne(), { ok: true });
    assert.equal((await accountOf(cli, target.accountId)).held_micros, 3_000);
  } finally {
    await cli.close();
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
