import assert from "node:assert/strict";
import { benchHold, fundedTarget, type HoldTarget } from "../../bench/store_rows.ts";
import { type Db, openDatabase } from "./database.ts";
import { createHoldDecider, OTHERS_SEEN_WITHIN_MS, UnwrittenHolds } from "./hold_decider.ts";
import type { ChangeCounts } from "./sql_client.ts";
import { openSqliteFile } from "./sqlite_file.ts";

const HALF_LEFT = { ok: false, reason: "balance", availableMicros: 500 };

/**
 * A file with a funded target, a connection of its own for the decider (as the serving
 * process has) and another for "another process"; the decider keeps the test's clock
 * and counts its reads of the data version.
 */
async function setUp() {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_decider_" });
  const other: Db = await openDatabase(`file:${dir}/t.db`);
  const target: HoldTarget = await fundedTarget(other);
  const own = openSqliteFile(`${dir}/t.db`);
  let clock = 0;
  let versionReads = 0;
  const changes: ChangeCounts = {
    own: own.changes!.own,
    others: () => (versionReads++, own.changes!.others()),
  };
  const decide = createHoldDecider({ read: own.readNow!, changes, now: () => clock });
  const setBalance = async (micros: number, by: "own" | "other") => {
    const sql = "UPDATE accounts SET balance_micros = ? WHERE id = ?";
    if (by === "own") await own.client.execute({ sql, args: [micros, target.accountId] });
    else {
      await other.kysely.updateTable("accounts").set({ balance_micros: micros })
        .where("id", "=", target.accountId).execute();
    }
  };
  return {
    /** A new hold of 1,000. */
    hold: () => benchHold(target),
    /** Decides `hold` (a new one unless given) with `unwritten` counted as held. */
    takeOne: (unwritten = new UnwrittenHolds(), hold = benchHold(target)) =>
      decide([hold], unwritten)[0],
    setBalance,
    advance: (ms: number) => void (clock += ms),
    versionReads: () => versionReads,
    async close() {
      await own.close();
      await other.close();
    },
  };
}

/** Runs `test` on a file set up as setUp does, and closes it after. */
function withFile(test: (file: Awaited<ReturnType<typeof setUp>>) => Promise<void>) {
  return async () => {
    const file = await setUp();
    try {
      await test(file);
    } finally {
      await file.close();
    }
  };
}

Deno.test(
  "hold decider: another process's lower balance counts once OTHERS_SEEN_WITHIN_MS passed, and the data version is read once in that time",
  withFile(async (file) => {
    await file.setBalance(1_500, "other");
    assert.deepEqual(file.takeOne(), { ok: true });
    await file.setBalance(500, "other");
    // Within the time, decisions keep the totals read: no read of the data version each.
    file.advance(OTHERS_SEEN_WITHIN_MS - 1);
    assert.deepEqual(file.takeOne(), { ok: true });
    assert.equal(file.versionReads(), 1);
    file.advance(1);
    assert.deepEqual(file.takeOne(), HALF_LEFT);
    assert.equal(file.versionReads(), 2);
  }),
);

Deno.test(
  "hold decider: a refusal is decided again on fresh totals, so another process's top-up counts at once",
  withFile(async (file) => {
    await file.setBalance(1_500, "other");
    const unwritten = new UnwrittenHolds();
    const taken = file.hold();
    assert.deepEqual(file.takeOne(unwritten, taken), { ok: true });
    unwritten.add(taken);
    assert.deepEqual(file.takeOne(unwritten), HALF_LEFT);
    await file.setBalance(2_500, "other");
    file.advance(1);
    assert.deepEqual(file.takeOne(unwritten), { ok: true });
  }),
);

Deno.test(
  "hold decider: a change through its own connection counts at the next decision, whatever the time",
  withFile(async (file) => {
    await file.setBalance(1_500, "own");
    assert.deepEqual(file.takeOne(), { ok: true });
    await file.setBalance(500, "own");
    assert.deepEqual(file.takeOne(), HALF_LEFT);
    await file.setBalance(3_000, "own");
    assert.deepEqual(file.takeOne(), { ok: true });
  }),
);
