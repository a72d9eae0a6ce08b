import assert from "node:assert/strict";
import { settleRequest, withAdmin } from "../admin/test_support.ts";
import { figure, loadUsageView, rangeOf } from "./usage_range.ts";

const NOW = Date.parse("2030-01-31T12:34:56Z");
const DAY = 86_400_000;

Deno.test("usage range: the last 30 days by day unless the query names another range", () => {
  const of = (query: string) => rangeOf(new URLSearchParams(query), NOW);
  assert.deepEqual(of(""), {
    name: "30d",
    since: new Date(NOW - 30 * DAY).toISOString(),
    until: new Date(NOW).toISOString(),
    bucket: "day",
    metric: "cost",
  });
  assert.deepEqual([of("range=24h").bucket, of("range=24h").since], [
    "hour",
    new Date(NOW - DAY).toISOString(),
  ]);
  assert.equal(of("range=forever").name, "30d");
  assert.equal(of("metric=tokens").metric, "tokens");
  assert.equal(of("metric=bogus").metric, "cost");
  const custom = of("since=2030-01-30&until=2030-01-31");
  assert.deepEqual([custom.name, custom.since, custom.until, custom.bucket], [
    "custom",
    "2030-01-30",
    "2030-01-31",
    "hour",
  ]);
  assert.equal(of("since=2029-12-01").bucket, "day");
  assert.equal(of("since=2029-12-01").until, new Date(NOW).toISOString());
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
    const range = rangeOf(new URLSearchParams("range=7d"), clock.now);
    const view = await loadUsageView(admin, range);
    assert.deepEqual(view.stacks.map((stack) => stack.label), [
      "m6",
      "m5",
      "m4",
      "m3",
      "m2",
      "2 other models",
    ]);
    const series = view.report.series!;
    assert.equal(view.times.length, series.length);
    series.forEach((point, index) => {
      const stacked = view.stacks.reduce((sum, stack) => sum + stack.values[index]!, 0);
      assert.equal(stacked, figure(point, "cost"), point.t);
    });
    const total = view.stacks.flatMap((stack) => stack.values).reduce((a, b) => a + b, 0);
    assert.equal(total, Math.round(view.report.totals.cost_usd * 1e6));
    // One key's view holds only its usage.
    const other = await admin.keys.create({ account: "alice" });
    assert.equal((await loadUsageView(admin, range, other.id)).report.totals.requests, 0);
  });
});
