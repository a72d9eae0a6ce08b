/**
 * The hold journal of a SQLite file's serving process (src/db/hold_journal.ts) through
 * real stores on real files: the crash window it covers, and one owner per file.
 */
import assert from "node:assert/strict";
import { recoverHolds } from "../src/billing/recovery.ts";
import { benchHold, benchSettlement, fundedTarget } from "../bench/store_rows.ts";
import { type Db, openDatabase } from "../src/db/database.ts";
import { accountingStep } from "../src/db/holds.ts";
import { openSqliteFile } from "../src/db/sqlite_file.ts";
import { RECORD_AFTER_MS } from "../src/db/sqlite_store.ts";
import { waitUntil } from "./accounting_support.ts";

/** A serving process's identity; its first heartbeat takes the file's hold journal. */
const SERVER = { id: "inst_server", host: "test-host", pid: 1, heartbeatAt: 0 };

async function holdRows(db: Db) {
  return await db.kysely.selectFrom("holds").select("id").execute();
}

async function accountOf(db: Db, id: number) {
  return await db.kysely.selectFrom("accounts").selectAll().where("id", "=", id)
    .executeTakeFirstOrThrow();
}

Deno.test("sqlite store: a hold journalled but not yet in the database when the server dies is interrupted at the next start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_journal_" });
  const db = await openDatabase(`file:${dir}/t.db`);
  const target = await fundedTarget(db);
  await db.store.heartbeat(SERVER);
  const crashed = await Deno.makeTempDir({ prefix: "tollgate_crashed_" });
  const hold = { ...benchHold(target), instanceId: SERVER.id };
  assert.deepEqual(await db.store.takeHold(hold), { ok: true }, "a lone hold, journalled");
  // The files as a kill -9 would leave them now (no turn of the event loop in between, only
  // promise reactions): the hold resolved, so its request may be upstream already, and its
  // row is not written.
  for (const suffix of ["", "-wal", "-holds"]) {
    Deno.copyFileSync(`${dir}/t.db${suffix}`, `${crashed}/t.db${suffix}`);
  }
  await db.close();

  const restarted = await openDatabase(`file:${crashed}/t.db`);
  try {
    assert.deepEqual(await holdRows(restarted), [], "the crash came before the hold's row");
    const released = await recoverHolds(restarted, {
      id: "inst_restarted",
      host: SERVER.host,
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
    assert.deepEqual(await holdRows(restarted), []);
  } finally {
    await restarted.close();
  }
});

Deno.test("sqlite store: a journalled hold is written only once it outlives RECORD_AFTER_MS; till then the journal keeps it past each commit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_journal_" });
  const db = await openDatabase(`file:${dir}/t.db`);
  try {
    const target = await fundedTarget(db);
    await db.store.heartbeat(SERVER);
    const running = { ...benchHold(target), instanceId: SERVER.id };
    const quick = { ...benchHold(target), instanceId: SERVER.id };
    assert.deepEqual(await db.store.takeHold(running), { ok: true });
    assert.deepEqual(await db.store.takeHold(quick), { ok: true });
    // Resolves once its batch committed: a hold settled young leaves no row behind.
    await db.store.settleHold(benchSettlement(quick));
    assert.deepEqual(await holdRows(db), [], "one hold settled at once, the other still young");
    assert.equal((await db.kysely.selectFrom("ledger").selectAll().execute()).length, 1);

    // The batch's commit mark kept the running hold in the journal: a crash now interrupts it.
    const crashed = await Deno.makeTempDir({ prefix: "tollgate_crashed_" });
    for (const suffix of ["", "-wal", "-holds"]) {
      Deno.copyFileSync(`${dir}/t.db${suffix}`, `${crashed}/t.db${suffix}`);
    }
    const restarted = await openDatabase(`file:${crashed}/t.db`);
    try {
      await restarted.store.heartbeat({ ...SERVER, id: "inst_restarted", pid: 2 });
      assert.deepEqual(await holdRows(restarted), [{ id: running.id }], "the journal had kept it");
    } finally {
      await restarted.close();
    }

    // Left running, the store writes it once it comes of age.
    await waitUntil(
      async () => (await holdRows(db)).length === 1,
      `the running hold's row after ${RECORD_AFTER_MS} ms`,
    );
    assert.deepEqual(await holdRows(db), [{ id: running.id }]);
  } finally {
    await db.close();
  }
});

Deno.test("sqlite store: a second server on the same file commits its holds before they resolve; the journal passes on at close", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_journal_" });
  const url = `file:${dir}/t.db`;
  const owner = await openDatabase(url);
  const second = await openDatabase(url);
  let next: Db | undefined;
  try {
    const target = await fundedTarget(owner);
    await owner.store.heartbeat(SERVER);
    await second.store.heartbeat({ ...SERVER, id: "inst_second", pid: 2 });

    const held = benchHold(target);
    assert.deepEqual(await second.store.takeHold(held), { ok: true });
    assert.deepEqual(await holdRows(second), [{ id: held.id }], "in the database on resolving");
    const journalled = benchHold(target);
    assert.deepEqual(await owner.store.takeHold(journalled), { ok: true });
    assert.deepEqual(await holdRows(owner), [{ id: held.id }], "journalled, its row comes next");
    await owner.store.settleHold(benchSettlement(journalled));
    assert.deepEqual(await holdRows(owner), [{ id: held.id }]);
    assert.equal((await accountOf(owner, target.accountId)).held_micros, held.amountMicros);

    await owner.close();
    next = await openDatabase(url);
    await next.store.heartbeat({ ...SERVER, id: "inst_next", pid: 3 });
    assert.deepEqual(await next.store.takeHold(benchHold(target)), { ok: true });
    assert.deepEqual(await holdRows(next), [{ id: held.id }], "the next owner journals its holds");
    const rows = await next.kysely.selectFrom("ledger").select("status").execute();
    assert.deepEqual(rows, [{ status: "ok" }], "nothing was left to interrupt");
  } finally {
    await owner.close();
    await second.close();
    await next?.close();
  }
});

Deno.test("sqlite store: a journalled hold written in the batch that settles it leaves no row and holds nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_journal_" });
  const db = await openDatabase(`file:${dir}/t.db`);
  const connection = openSqliteFile(`${dir}/t.db`);
  try {
    const target = await fundedTarget(db);
    const hold = benchHold(target);
    const settle = benchSettlement(hold);
    // A hold whose write failed is written by the next batch, which may be its settlement's.
    await connection.transaction(
      accountingStep([{ kind: "record", hold }, { kind: "settle", settle }]),
    );
    assert.deepEqual(await holdRows(db), []);
    const account = await accountOf(db, target.accountId);
    assert.deepEqual(
      [account.held_micros, account.balance_micros],
      [0, 1_000_000_000_000 - settle.costMicros],
    );
    const rows = await db.kysely.selectFrom("ledger").select("status").execute();
    assert.deepEqual(rows, [{ status: "ok" }]);
  } finally {
    connection.close();
    await db.close();
  }
});

Deno.test("sqlite store: a journalled hold sees the balance as another process or the server's own connection last changed it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_journal_" });
  const url = `file:${dir}/t.db`;
  const db = await openDatabase(url);
  const cli = await openDatabase(url);
  const setBalance = (on: Db, micros: number) =>
    on.kysely.updateTable("accounts").set({ balance_micros: micros })
      .where("id", "=", target.accountId).execute();
  const target = await fundedTarget(db);
  const takeOne = () => db.store.takeHold(benchHold(target));
  const HALF_LEFT = { ok: false, reason: "balance", availableMicros: 500 };
  try {
    await setBalance(db, 1_500);
    await db.store.heartbeat(SERVER);
    // Each hold holds 1,000: the second finds 500 left, the first counted though unwritten.
    assert.deepEqual(await takeOne(), { ok: true });
    assert.deepEqual(await takeOne(), HALF_LEFT);

    // A top-up from another process (the CLI) counts at once.
    await setBalance(cli, 2_500);
    assert.deepEqual(await takeOne(), { ok: true });
    assert.deepEqual(await takeOne(), HALF_LEFT);

    // So does a change through the server's own connection.
    await setBalance(db, 10_000);
    assert.deepEqual(await takeOne(), { ok: true });
    await db.store.flush();
    assert.equal((await accountOf(cli, target.accountId)).held_micros, 3_000);

    // Written now, the three holds count once, from the database, no longer as unwritten.
    await setBalance(cli, 4_500);
    assert.deepEqual(await takeOne(), { ok: true });
    assert.deepEqual(await takeOne(), HALF_LEFT);
  } finally {
    await cli.close();
    await db.close();
  }
});

Deno.test("sqlite store: a journalled hold grows, young in memory and written by the next batch, exactly; its settlement releases the whole", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_journal_" });
  const db = await openDatabase(`file:${dir}/t.db`);
  try {
    const target = await fundedTarget(db);
    await db.kysely.updateTable("accounts").set({ balance_micros: 10_000 })
      .where("id", "=", target.accountId).execute();
    await db.store.heartbeat(SERVER);
    const young = benchHold(target);
    const held = { ...benchHold(target), amountMicros: 2_000 };
    assert.deepEqual(await db.store.takeHold(held), { ok: true });
    await db.store.flush();
    assert.deepEqual(await holdRows(db), [{ id: held.id }], "written");
    assert.deepEqual(await db.store.takeHold(young), { ok: true }, "young: in the journal");
    // 7,000 left: extensions of both, at once, never grant more than that.
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => db.store.extendHold((i % 2 ? young : held).id, 500, 0)),
    );
    assert.equal(results.filter((result) => result.ok).length, 14);
    assert.deepEqual(results.find((result) => !result.ok), {
      ok: false,
      reason: "balance",
      availableMicros: 0,
    });
    await db.store.flush();
    const amounts = await db.kysely.selectFrom("holds").select(["id", "amount_micros"])
      .orderBy("amount_micros").execute();
    assert.deepEqual(
      amounts.map((row) => row.amount_micros).reduce((sum, n) => sum + n, 0),
      10_000,
      "both rows hold what they grew by",
    );
    assert.equal((await accountOf(db, target.accountId)).held_micros, 10_000);
    await Promise.all([
      db.store.settleHold(benchSettlement(held)),
      db.store.settleHold(benchSettlement(young)),
    ]);
    const account = await accountOf(db, target.accountId);
    assert.deepEqual([account.held_micros, account.balance_micros], [0, 10_000 - 200]);
    assert.deepEqual(await db.store.extendHold(held.id, 1, 0), {
      ok: false,
      reason: "balance",
      availableMicros: 0,
    }, "a settled hold grows no more");
  } finally {
    await db.close();
  }
});
