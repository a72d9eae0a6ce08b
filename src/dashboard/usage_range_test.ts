import assert from "node:assert/strict";
import { settleRequest, withAdmin } from "../admin/test_support.ts";
import { TimeZone } from "./time_zone.ts";
import { figure, loadUsageView, rangeOf } from "./usage_range.ts";

// A Thursday, 07:34:56 in New York (UTC-5 in January).
const NOW = Date.parse("2030-01-31T12:34:56Z");
const DAY = 86_400_000;
const UTC = TimeZone.of("UTC");
const NEW_YORK = TimeZone.of("America/New_York");
const iso = (ms: number) => new Date(ms).toISOString();

Deno.test("usage range: the last 30 days by day unless the query names another range", () => {
  const of = (query: string) => rangeOf(new URLSearchParams(query), NOW, UTC).range;
  const { zone: _, ...plain } = of("");
  assert.deepEqual(plain, {
    name: "30d",
    since: NOW - 30 * DAY,
    until: NOW,
    bucket: "day",
    metric: "cost",
  });
  assert.deepEqual([of("range=24h").bucket, of("range=24h").since], ["hour", NOW - DAY]);
  assert.equal(of("range=forever").name, "30d");
  assert.equal(of("metric=tokens").metric, "tokens");
  assert.equal(of("metric=bogus").metric, "cost");
  const custom = of("since=2030-01-30&until=2030-01-31");
  assert.deepEqual([custom.name, iso(custom.since), iso(custom.until), custom.bucket], [
    "custom",
    "2030-01-30T00:00:00.000Z",
    "2030-01-31T00:00:00.000Z",
    "hour",
  ]);
  assert.equal(of("since=2029-12-01").bucket, "day");
  assert.equal(of("since=2029-12-01").until, NOW);
});

Deno.test("usage range: today, yesterday, this week, this month and chosen days in the viewer's zone", () => {
  const of = (query: string) => rangeOf(new URLSearchParams(query), NOW, NEW_YORK).range;
  const bounds = (query: string) => {
    const range = of(query);
    return [iso(range.since), iso(range.until), range.bucket];
  };
  // New York's midnight is 05:00 UTC in winter.
  assert.deepEqual(bounds("range=today"), ["2030-01-31T05:00:00.000Z", iso(NOW), "hour"]);
  assert.deepEqual(bounds("range=yesterday"), [
    "2030-01-30T05:00:00.000Z",
    "2030-01-31T05:00:00.000Z",
    "hour",
  ]);
  // Weeks start on Monday: the 28th.
  assert.deepEqual(bounds("range=week"), ["2030-01-28T05:00:00.000Z", iso(NOW), "day"]);
  assert.deepEqual(bounds("range=month"), ["2030-01-01T05:00:00.000Z", iso(NOW), "day"]);
  // Chosen days include the last one; a range that runs into the future ends now.
  assert.deepEqual(bounds("from=2030-01-10&to=2030-01-12"), [
    "2030-01-10T05:00:00.000Z",
    "2030-01-13T05:00:00.000Z",
    "day",
  ]);
  assert.deepEqual(bounds("from=2030-01-30&to=2030-02-05"), [
    "2030-01-30T05:00:00.000Z",
    iso(NOW),
    "hour",
  ]);
  // Days still to come: an empty range.
  assert.deepEqual(bounds("from=2030-03-10&to=2030-03-11").slice(0, 2), [
    "2030-03-10T05:00:00.000Z",
    "2030-03-10T05:00:00.000Z",
  ]);
  // Across the start of daylight saving time (10 March 2030): the day after starts at 04:00 UTC.
  const later = rangeOf(
    new URLSearchParams("from=2030-03-10&to=2030-03-10"),
    Date.parse("2030-04-01T00:00:00Z"),
    NEW_YORK,
  ).range;
  assert.deepEqual([iso(later.since), iso(later.until), later.bucket], [
    "2030-03-10T05:00:00.000Z",
    "2030-03-11T04:00:00.000Z",
    "hour",
  ]);
  const refused = rangeOf(new URLSearchParams("from=2030-02-30"), NOW, NEW_YORK);
  assert.equal(refused.range.name, "30d");
  assert.match(refused.error ?? "", /Invalid date "2030-02-30"/);
  const backwards = rangeOf(new URLSearchParams("from=2030-01-12&to=2030-01-10"), NOW, NEW_YORK);
  assert.match(backwards.error ?? "", /ends before it starts/);
  assert.match(
    rangeOf(new URLSearchParams("since=last+week"), NOW, UTC).error ?? "",
    /Invalid since "last week"/,
  );
});

Deno.test("usage view: five models stacked with the rest as one series, each bucket summing to the whole", async () => {
  await withAdmin(async ({ admin, db, clock }) => {
    await admin.accounts.create({ name: "alice", unlimited: true });
    const key = await admin.keys.create({ account: "alice" });
    const accountId =
      (await db.kysely.selectFrom("accounts").select("id").executeTakeFirstOrThrow())
        .id;
    const start = clock.now;
    // Seven models over three days; model i costs (i + 1) * 100 micro-USD a request.
    for (let day = 0; day < 3; day++) {
      for (let model = 0; model < 7; model++) {
        if ((day + model) % 3 === 0) continue;
        await settleRequest(db, {
          accountId,
          keyId: key.id,
          model: `m${model}`,
          costMicros: (model + 1) * 100,
          createdAt: start + day * DAY + model * 60_000,
        });
      }
    }
    clock.now = start + 3 * DAY;
    for (const zone of [UTC, NEW_YORK]) {
      const { range } = rangeOf(new URLSearchParams("range=7d"), clock.now, zone);
      const view = await loadUsageView(admin, range);
      assert.deepEqual(view.stacks.map((stack) => stack.label), [
        "m6",
        "m5",
        "m4",
        "m3",
        "m2",
        "2 other models",
      ]);
      const buckets = view.times.map((_, index) =>
        view.stacks.reduce((sum, stack) => sum + stack.values[index]!, 0)
      );
      const total = buckets.reduce((a, b) => a + b, 0);
      assert.equal(total, Math.round(view.report.totals.cost_usd * 1e6), zone.name);
      // Each bar is a day of the zone: its first millisecond is the zone's midnight.
      for (const t of view.times) assert.equal(zone.startOfDay(t), t, `${zone.name} ${iso(t)}`);
      if (zone === UTC) {
        view.report.series!.forEach((point, index) => {
          assert.equal(buckets[index], figure(point, "cost"), point.t);
        });
      }
    }
    // One key's view holds only its usage.
    const other = await admin.keys.create({ account: "alice" });
    const { range } = rangeOf(new URLSearchParams("range=7d"), clock.now, UTC);
    assert.equal((await loadUsageView(admin, range, { key: other.id })).report.totals.requests, 0);
  });
});
