import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { startWalSync } from "./wal_sync.ts";

/** A WAL-mode file whose writes are counted, as the serving connection counts its own. */
async function withLog(
  test: (log: { write(): void; path: string; writes: () => number }) => Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  const db = new DatabaseSync(`${dir}/t.db`);
  let writes = 0;
  try {
    await test({
      path: `${dir}/t.db-wal`,
      writes: () => writes,
      write() {
        db.exec("PRAGMA journal_mode = WAL");
        db.exec("CREATE TABLE IF NOT EXISTS t (v TEXT)");
        db.exec("INSERT INTO t (v) VALUES ('x')");
        writes++;
      },
    });
  } finally {
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

// The interval is an hour: each test drives its syncs itself.
const HOUR_MS = 3_600_000;

Deno.test("wal sync: the log is synced once the connection wrote, and again only after it writes more", async () => {
  await withLog(async (log) => {
    const walSync = startWalSync(log.path, log.writes, HOUR_MS);
    try {
      assert.equal(await walSync.sync(), false, "nothing was written since it started");
      log.write();
      assert.equal(await walSync.sync(), true);
      assert.equal(await walSync.sync(), false, "nothing new to sync");
      log.write();
      assert.equal(await walSync.sync(), true);
    } finally {
      await walSync.close();
    }
  });
});

Deno.test("wal sync: a log not there yet is tried again at the next sync", async () => {
  await withLog(async (log) => {
    let counted = 0;
    const walSync = startWalSync(log.path, () => counted, HOUR_MS);
    try {
      counted++; // a write counted before SQLite made the log
      assert.equal(await walSync.sync(), false);
      log.write();
      assert.equal(await walSync.sync(), true, "the write is still to sync");
    } finally {
      await walSync.close();
    }
  });
});

Deno.test("wal sync: closing waits for the sync under way, and nothing syncs after", async () => {
  await withLog(async (log) => {
    const walSync = startWalSync(log.path, log.writes, HOUR_MS);
    log.write();
    const under = walSync.sync();
    assert.equal(walSync.sync(), under, "one sync at a time");
    // The test's sanitizers fail it if the sync's op or the log's file outlives close.
    await walSync.close();
    assert.equal(await under, true);
    log.write();
    assert.equal(await walSync.sync(), false);
  });
});
