/**
 * Alerts end to end on a SQLite file, time moved by hand: a budget threshold crossed by a
 * settlement reaches a webhook whose receiver checks the signature with an independent
 * implementation; a receiver that answers 500 twice gets the same `webhook-id` again 30 s
 * and then 60 s later; `alerts test` and `alerts list` through the admin API; the budget
 * renews at local midnight of a non-UTC (half-hour) zone; a channel that cools down and
 * recovers gives one incident.
 */
import assert from "node:assert/strict";
import { ManualClock } from "./fakes/manual_clock.ts";
import { alertsSection, startReceiver } from "./alerts_support.ts";
import { alertEvents, burst, keyBudget, startDearGateway } from "./budgets_cases.ts";

Deno.test("alerts: a threshold reaches a signed webhook; 500 twice, retried within 30 s, then 50 s on, under one id", async () => {
  const receiver = await startReceiver({ answer: (n) => n <= 2 ? 500 : 204 });
  const clock = new ManualClock(Date.now());
  const { gateway, close } = await startDearGateway(
    `${alertsSection(receiver.url, "thresholds = [0.5]")}\n` +
      `[groups.default.key_budget]\nusd = 0.04\nperiod = "month"\n`,
    { now: () => clock.now(), clock, alertsClock: clock },
  );
  try {
    const { id, secret } = await gateway.createKey({ unlimited: true });
    for (let i = 0; i < 2; i++) assert.equal((await burst(gateway, secret, 1))[0]!.status, 200);
    await gateway.server.settled();
    // The worker looks every second (of this clock); time stands still while it sends, so
    // each retry's schedule is exact (a pass is given a tenth of a second, really).
    const settle = () => new Promise((resolve) => setTimeout(resolve, 100));
    while (receiver.received.length === 0) {
      clock.advance(1_000);
      await settle();
    }
    const first = receiver.received[0]!;
    assert.ok(first.verified, "signed as Standard Webhooks v1");
    assert.equal(first.payload.type, "budget.threshold_crossed");
    assert.deepEqual(first.payload.data, {
      scope: { kind: "key", id, name: null, account: "account_1" },
      threshold: 0.5,
      budget_usd: "0.04",
      spent_usd: "0.02",
      held_usd: "0.00",
      remaining_usd: "0.02",
      period: "month",
      period_start: first.payload.data.period_start,
      renews_at: first.payload.data.renews_at,
    });
    // The retry is due 25 s after the failed attempt (within 30 s: the worker looks each
    // second), the next 50 s after that; nothing goes out before it is due.
    const delivery = () =>
      gateway.db.kysely.selectFrom("alert_deliveries").selectAll().executeTakeFirstOrThrow();
    const dueAfter = async (attempts: number) => {
      await waitFor(async () => (await delivery()).attempts === attempts);
      const { next_at } = await delivery();
      return Number(next_at);
    };
    /** Moves time to `at`, then a second at a time until `count` deliveries came. */
    const deliveredBy = async (at: number, count: number) => {
      await settle();
      clock.advance(Math.max(0, at - clock.now()));
      await settle();
      while (receiver.received.length < count) {
        clock.advance(1_000);
        await settle();
      }
    };
    const firstDue = await dueAfter(1);
    const firstAt = Number(first.timestamp) * 1000;
    assert.ok(firstDue - firstAt >= 25_000 && firstDue - firstAt < 26_000, `${firstDue - firstAt}`);
    await settle();
    clock.advance(firstDue - 1_000 - clock.now());
    await settle();
    assert.equal(receiver.received.length, 1, "not before it is due");
    await deliveredBy(firstDue, 2);
    const secondDue = await dueAfter(2);
    const secondAt = Number(receiver.received[1]!.timestamp) * 1000;
    assert.ok(secondDue - secondAt >= 50_000 && secondDue - secondAt < 51_000);
    await deliveredBy(secondDue, 3);
    const [a, b, c] = receiver.received.map((one) => Number(one.timestamp));
    assert.ok(b! - a! >= 25 && c! - b! >= 50, "each retry when it was due");
    assert.deepEqual(new Set(receiver.received.map((one) => one.id)).size, 1);
    assert.ok(receiver.received.every((one) => one.verified));

    const admin = await gateway.createKey({ account: "ops" });
    await gateway.db.kysely.updateTable("api_keys").set({ admin: 1 }).where("id", "=", admin.id)
      .execute();
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${gateway.url}/admin/api${path}`, {
        ...init,
        headers: { authorization: `Bearer ${admin.secret}`, "content-type": "application/json" },
      });
    await clock.advanceUntil(
      (async () => {
        for (;;) {
          const [event] = await (await api("/alerts")).json();
          if (event.deliveries[0]?.status === "delivered") return event;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })(),
      100,
    );
    const [listed] = await (await api("/alerts")).json();
    assert.equal(listed.type, "budget.threshold_crossed");
    assert.equal(listed.scope, `key:${id}`);
    assert.equal(listed.threshold, 0.5);
    assert.deepEqual(listed.deliveries, [{
      webhook: "ops",
      attempts: 3,
      status: "delivered",
      last_error: null,
      delivered_at: listed.deliveries[0].delivered_at,
    }]);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    assert.match(metrics, /tollgate_webhook_deliveries_total\{result="retried"\} 2/);
    assert.match(metrics, /tollgate_webhook_deliveries_total\{result="delivered"\} 1/);

    // A test event goes out at once, signed, whatever the webhook's events.
    const tested = await (await api("/alerts/test", { method: "POST", body: "{}" })).json();
    assert.equal(tested.type, "test");
    assert.equal(tested.deliveries[0].status, "delivered");
    assert.equal(receiver.received.at(-1)!.payload.type, "test");
    assert.ok(receiver.received.at(-1)!.verified);
    assert.deepEqual(await keyBudget(gateway.db, id), { spent: 20_000, held: 0 });
  } finally {
    await close();
    await receiver.close();
  }
});

Deno.test("alerts: a day budget renews at local midnight of a half-hour zone, and its thresholds fire again", async () => {
  // 2030-03-09T18:29:00Z is 23:59 on the 9th in India (+05:30).
  const clock = new ManualClock(Date.parse("2030-03-09T18:29:00Z"));
  const { gateway, close } = await startDearGateway(
    `[budgets]\ntimezone = "+05:30"\n[alerts]\nthresholds = [0.5]\n` +
      `[groups.default.key_budget]\nusd = 0.02\nperiod = "day"\n`,
    { now: () => clock.now(), clock, alertsClock: clock },
  );
  try {
    const { secret } = await gateway.createKey({ unlimited: true });
    assert.deepEqual((await burst(gateway, secret, 3)).map((s) => s.status).sort(), [
      200,
      200,
      403,
    ]);
    const refused = (await burst(gateway, secret, 1))[0]!.body.error;
    assert.match(refused.message, /it renews at 2030-03-09T18:30:00\.000Z/);
    clock.advance(59_000);
    assert.equal((await burst(gateway, secret, 1))[0]!.status, 403, "still the 9th in India");
    clock.advance(1_000);
    // Key lookups are cached for a second of this clock too.
    assert.deepEqual((await burst(gateway, secret, 2)).map((s) => s.status), [200, 200]);
    assert.equal((await burst(gateway, secret, 1))[0]!.status, 403);
    await gateway.server.settled();
    const events = (await alertEvents(gateway.db)).map((e) => [e.type, e.facts.period_start]);
    const day9 = Date.parse("2030-03-08T18:30:00Z");
    const day10 = Date.parse("2030-03-09T18:30:00Z");
    assert.deepEqual(events, [
      ["budget.threshold_crossed", day9],
      ["budget.exhausted", day9],
      ["budget.threshold_crossed", day10],
      ["budget.exhausted", day10],
    ]);
  } finally {
    await close();
  }
});

Deno.test("alerts: a channel that cools down and recovers gives one incident, its events 10 minutes apart at least", async () => {
  const clock = new ManualClock(Date.now());
  const { fake, gateway, close } = await startDearGateway(
    `[failover]\nretries = 0\ncooldown_ms = 30000\n[alerts]\nthresholds = [0.5]\n`,
    { now: () => clock.now(), clock, alertsClock: clock },
  );
  try {
    const { secret } = await gateway.createKey({ unlimited: true });
    fake.setBehaviour("500");
    for (let i = 0; i < 3; i++) assert.equal((await burst(gateway, secret, 1))[0]!.status, 502);
    const channelEvents = async () =>
      (await alertEvents(gateway.db)).filter((event) => event.type.startsWith("channel."));
    await waitFor(async () => (await channelEvents()).length === 1);
    assert.deepEqual((await channelEvents())[0], {
      type: "channel.down",
      scope: "channel:up",
      threshold: null,
      facts: { channel: "up", reason: "It failed 3 times in a row." },
    });
    // After its cool-down one request probes it, and succeeds: recovered, announced later.
    clock.advance(30_000);
    fake.setBehaviour({ reply: { text: "ok" } });
    assert.equal((await burst(gateway, secret, 1))[0]!.status, 200);
    const incident = () =>
      gateway.db.kysely.selectFrom("channel_incidents" as never).selectAll().executeTakeFirst();
    await waitFor(async () => (await incident() as { state?: string })?.state === "up");
    assert.equal((await channelEvents()).length, 1, "quiet for 10 minutes after an event");
    await clock.advanceUntil(waitFor(async () => (await channelEvents()).length === 2), 30_000);
    assert.equal((await channelEvents())[1]!.type, "channel.up");
  } finally {
    await close();
  }
});

Deno.test("alerts: a key about to expire is announced once; a prepaid balance under each floor once until a top-up", async () => {
  const clock = new ManualClock(Date.now());
  const { gateway, close } = await startDearGateway(
    `[alerts]\nbalance_below_usd = [0.04, 0.02]\nkey_expiry_days = 7\n`,
    { now: () => clock.now(), clock, alertsClock: clock },
  );
  try {
    const { secret, account } = await gateway.createKey({ balanceUsd: "0.05" });
    await gateway.createKey({ account, expiresAt: clock.now() + 3 * 86_400_000 });
    for (let i = 0; i < 4; i++) assert.equal((await burst(gateway, secret, 1))[0]!.status, 200);
    await gateway.server.settled();
    const low = async () =>
      (await alertEvents(gateway.db)).filter((event) => event.type === "balance.low")
        .map((event) => [event.facts.floor_micros, event.facts.available_micros]);
    assert.deepEqual(await low(), [[40_000, 30_000], [20_000, 10_000]]);
    // A top-up to $0.025 re-arms the $0.02 floor only; the next request goes under it again.
    const admin = await gateway.createKey({ account: "ops" });
    await gateway.db.kysely.updateTable("api_keys").set({ admin: 1 }).where("id", "=", admin.id)
      .execute();
    const topup = await fetch(`${gateway.url}/admin/api/accounts/${account}/topup`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ usd: "0.015", reason: "a refill" }),
    });
    assert.equal(topup.status, 200);
    assert.equal((await burst(gateway, secret, 1))[0]!.status, 200);
    await gateway.server.settled();
    assert.deepEqual((await low()).length, 3);
    // The expiry timer runs at the worker's first look and each minute after.
    await clock.advanceUntil(
      waitFor(async () =>
        (await alertEvents(gateway.db)).some((event) => event.type === "key.expiring")
      ),
      60_000,
    );
    clock.advance(120_000);
    const expiring = (await alertEvents(gateway.db)).filter((e) => e.type === "key.expiring");
    assert.equal(expiring.length, 1);
  } finally {
    await close();
  }
});

/** Resolves once `condition` holds, checking between turns of the event loop. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 2_000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("Timed out waiting for a condition.");
}
