import assert from "node:assert/strict";
import { settleRequest, withAdmin } from "./test_support.ts";

Deno.test("latency: the median duration of the range's requests that ended ok, by key or model", async () => {
  await withAdmin(async ({ admin, db, clock }) => {
    await admin.accounts.create({ name: "alice", unlimited: true });
    const [one, two] = [
      await admin.keys.create({ account: "alice" }),
      await admin.keys.create({ account: "alice" }),
    ];
    const accountId =
      (await db.kysely.selectFrom("accounts").select("id").executeTakeFirstOrThrow()).id;
    const start = clock.now;
    const rows: [string, string, number, string, number][] = [
      [one.id, "m", 10, "ok", 0],
      [one.id, "m", 30, "ok", 1],
      [one.id, "big", 50, "ok", 2],
      [two.id, "m", 70, "ok", 3],
      [two.id, "m", 9_000, "failed", 4],
      [two.id, "m", 1_000, "ok", 60],
    ];
    for (const [keyId, model, durationMs, status, minute] of rows) {
      await settleRequest(db, {
        accountId,
        keyId,
        model,
        durationMs,
        status,
        createdAt: start + minute * 60_000,
      });
    }
    const until = new Date(start + 10 * 60_000).toISOString();
    const since = new Date(start).toISOString();
    assert.deepEqual(
      await admin.latency({ since, until }),
      { p50_ms: 40, sample: 4 },
      "failed rows and rows after `until` left out",
    );
    assert.deepEqual(await admin.latency({}), { p50_ms: 50, sample: 5 });
    assert.deepEqual(await admin.latency({ key: one.id }), { p50_ms: 30, sample: 3 });
    assert.deepEqual(await admin.latency({ model: "m", until }), { p50_ms: 30, sample: 3 });
    assert.deepEqual(await admin.latency({ account: "nobody" }), { p50_ms: null, sample: 0 });
  });
});
