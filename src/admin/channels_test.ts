import assert from "node:assert/strict";
import { testPrincipal } from "../auth/test_support.ts";
import type { AttemptRecord } from "../billing/attempt_record.ts";
import type { Db } from "../db/database.ts";
import { createChannelStats } from "../observability/channel_stats.ts";
import { createRouter } from "../routing/router.ts";
import { protocolOf } from "../protocols/index.ts";
import { bucketMedian, type ChannelJson } from "./channels.ts";
import { settleRequest, withAdmin } from "./test_support.ts";

const MINUTE = 60_000;
const NOW = Date.parse("2030-01-01T12:00:00Z");

/** One attempt of a ledger row, as the relay records it. */
function attempt(channel: string, fields: Partial<AttemptRecord>): AttemptRecord {
  return { channel, model: "m", upstreamModel: "m", outcome: "failed", ...fields };
}

/** Settles a request whose attempts were `attempts`, `ago` ms before NOW. */
async function settleAttempts(db: Db, ago: number, attempts: AttemptRecord[]): Promise<void> {
  const { id: accountId } = await db.kysely.selectFrom("accounts").select("id")
    .executeTakeFirstOrThrow();
  const { id: keyId } = await db.kysely.selectFrom("api_keys").select("id")
    .executeTakeFirstOrThrow();
  await settleRequest(db, {
    accountId,
    keyId,
    createdAt: NOW - ago,
    channel: attempts.at(-1)!.channel,
    attempts: attempts.length,
    attemptLog: JSON.stringify(attempts),
    status: attempts.at(-1)!.outcome === "ok" ? "ok" : "failed",
  });
}

/** The figures a test compares of a channel. */
function figures(channel: ChannelJson) {
  return {
    state: channel.state,
    requests_1h: channel.requests_1h,
    ok_1h: channel.ok_1h,
    errors_1h: channel.errors_1h,
    requests_24h: channel.requests_24h,
    ok_24h: channel.ok_24h,
    errors_24h: channel.errors_24h,
  };
}

Deno.test("admin channels: every node's last hour and day from the rollup; failing while the latest attempt failed", async () => {
  await withAdmin(async ({ admin, db, clock }) => {
    clock.now = NOW;
    await admin.accounts.create({ name: "alice", unlimited: true });
    await admin.keys.create({ account: "alice" });
    // Two hours ago: served. Within the hour: a 500 (the channel's fault), a 400 and a client
    // that left (not its fault), then served on the spare channel after a timeout on main.
    await settleAttempts(db, 120 * MINUTE, [attempt("main", { outcome: "ok", ttfbMs: 300 })]);
    await settleAttempts(db, 40 * MINUTE, [
      attempt("main", { status: 500, reason: "The upstream answered HTTP 500.", kind: "status" }),
    ]);
    await settleAttempts(db, 30 * MINUTE, [
      attempt("main", { status: 400, reason: "Bad request.", kind: "status" }),
    ]);
    await settleAttempts(db, 25 * MINUTE, [
      attempt("main", { reason: "The client disconnected.", kind: "client_gone" }),
    ]);
    await settleAttempts(db, 20 * MINUTE, [
      attempt("main", { reason: "The upstream sent nothing for 5 ms.", kind: "timeout" }),
      attempt("spare", { outcome: "ok", ttfbMs: 1_500 }),
    ]);
    let [main, spare] = await admin.channels();
    assert.deepEqual(figures(main!), {
      state: "failing",
      requests_1h: 4,
      ok_1h: 0,
      errors_1h: 2,
      requests_24h: 5,
      ok_24h: 1,
      errors_24h: 2,
    });
    assert.equal(main!.last_error, "The upstream sent nothing for 5 ms.");
    assert.equal(main!.last_error_at, new Date(NOW - 20 * MINUTE).toISOString());
    assert.equal(main!.last_error_status, null);
    assert.equal(main!.last_ok_at, new Date(NOW - 120 * MINUTE).toISOString());
    // Estimated from its bucket (250-500 ms): its middle.
    assert.equal(main!.p50_ttfb_ms_24h, 375);
    assert.equal(main!.p50_ttfb_ms_1h, null);
    // Outside a serving process there is no node's view: the rollup alone says failing or not.
    assert.deepEqual([main!.node_state, spare!.node_state, spare!.state], [
      "unknown",
      "unknown",
      "unknown",
    ]);
    assert.deepEqual(figures(spare!).requests_1h, 1);

    // A served attempt after the errors: up again. An hour later the errors are out of the hour.
    await settleAttempts(db, 5 * MINUTE, [attempt("main", { outcome: "ok", ttfbMs: 700 })]);
    [main] = await admin.channels();
    assert.equal(main!.state, "unknown");
    assert.deepEqual([main!.requests_1h, main!.ok_1h, main!.errors_1h], [5, 1, 2]);
    clock.now = NOW + 50 * MINUTE;
    [main] = await admin.channels();
    assert.deepEqual([main!.requests_1h, main!.errors_1h, main!.requests_24h], [1, 0, 6]);

    // The last day by hour, oldest first, each hour's figures.
    const detail = await admin.channel("main");
    assert.equal(detail.series_24h.length, 24);
    assert.equal(detail.series_24h.at(-1)!.t, "2030-01-01T12:00:00.000Z");
    assert.deepEqual(
      detail.series_24h.slice(-3).map(({ requests, ok, errors }) => [requests, ok, errors]),
      [
        [1, 1, 0],
        [5, 1, 2],
        [0, 0, 0],
      ],
    );
    await assert.rejects(
      admin.channel("nowhere"),
      /the config has no such channel; its channels are "main", "spare"/,
    );
  });
});

Deno.test("admin channels: this process's cool-down, probe and keys beside the rollup", async () => {
  const router = createRouter({ now: () => NOW });
  const stats = createChannelStats(() => NOW - MINUTE);
  await withAdmin(async ({ admin, db, config, clock }) => {
    clock.now = NOW;
    await admin.accounts.create({ name: "alice", unlimited: true });
    await admin.keys.create({ account: "alice" });
    // Three failures in a row on "main": it cools down for the config's cool-down.
    for (let i = 0; i < 3; i++) {
      const plan = router.plan(config, testPrincipal(), "m", protocolOf("chat"));
      const tried = plan.next()!;
      plan.fail(tried.channel.name === "main" ? tried : plan.next()!, "channel_failed");
    }
    stats.attemptFailed("main", "status", "The upstream answered HTTP 502.");
    const [main, spare] = await admin.channels();
    assert.equal(main!.state, "cooling");
    assert.equal(main!.node_state, "cooling");
    assert.equal(main!.cooling_until, new Date(NOW + config.failover.cooldown_ms).toISOString());
    // Nothing settled yet: the last error is this process's.
    assert.equal(main!.last_error, "The upstream answered HTTP 502.");
    assert.deepEqual([main!.requests, main!.errors], [1, 1]);
    assert.equal(spare!.state, "up");
    // A failure settled on another node makes this node's "up" channel failing.
    await settleAttempts(db, MINUTE, [
      attempt("spare", { status: 503, reason: "Overloaded.", kind: "status" }),
    ]);
    const [, failing] = await admin.channels();
    assert.deepEqual([failing!.state, failing!.node_state, failing!.last_error_status], [
      "failing",
      "up",
      503,
    ]);
  }, () => ({ router, stats }));
});

Deno.test("admin channels: the median time to first byte, from the rollup's buckets", () => {
  assert.equal(bucketMedian([]), null);
  assert.equal(bucketMedian([0, 0, 0]), null);
  // Two in 250-500 ms: the middle of the bucket.
  assert.equal(bucketMedian([0, 0, 2]), 375);
  // One in each of the first two buckets: the top of the first.
  assert.equal(bucketMedian([1, 1]), 100);
  // All past 32 s: its lower bound.
  assert.equal(bucketMedian([0, 0, 0, 0, 0, 0, 0, 0, 0, 3]), 32_000);
});
