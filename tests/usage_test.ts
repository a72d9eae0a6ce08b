/**
 * Usage sums (src/db/usage.ts) over any range, key, account and model equal the ledger's own
 * sums, on SQLite and on PostgreSQL: the whole hours come from the rollups the settlements
 * kept, the partial hours at the edges from the ledger.
 */
import assert from "node:assert/strict";
import { issueKey } from "../src/auth/issue_key.ts";
import { createAccount } from "../src/db/accounts.ts";
import { openDatabase } from "../src/db/database.ts";
import { DAY_MS, HOUR_MS } from "../src/db/rollup_rows.ts";
import type { LedgerRow } from "../src/db/schema.ts";
import { usageByKey, type UsageScope, usageSeries } from "../src/db/usage.ts";
import { startPostgres } from "./postgres.ts";

Deno.test("usage over any range equals the ledger's sums, on a SQLite file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await usageEqualsLedger(`file:${dir}/usage.db`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("usage over any range equals the ledger's sums, on PostgreSQL", async () => {
  const cluster = await startPostgres();
  try {
    await usageEqualsLedger(await cluster.createDatabase());
  } finally {
    await cluster.close();
  }
});

/** Settles pseudo-random requests into the database at `url` and checks usage against its ledger. */
async function usageEqualsLedger(url: string): Promise<void> {
  const db = await openDatabase(url);
  try {
    assert.equal((await db.migrate()).error, undefined);
    const accounts = await Promise.all(
      ["a", "b"].map(async (name) =>
        (await createAccount(db.kysely, { name, balanceMicros: 10 ** 9, unlimited: name === "b" }))!
      ),
    );
    const keys = await Promise.all(
      accounts.map(async (account) =>
        (await issueKey(db.kysely, { accountId: account.id, group: "g", createdAt: 0 })).key
      ),
    );
    // Pseudo-random rows over four days, settled in batches as the server settles them.
    let seed = 7;
    const random = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
    const base = 1_800_000_000_000 - (1_800_000_000_000 % DAY_MS);
    const settlements = Array.from({ length: 400 }, (_, i) => {
      const key = keys[random(2)]!;
      return db.store.settleHold({
        holdId: `hold_${i}`,
        accountId: key.account_id,
        keyId: key.id,
        requestId: `req_${i}`,
        createdAt: base + random(4 * DAY_MS),
        model: ["m1", "m2", "m3"][random(3)]!,
        entryPoint: "chat",
        channel: "c",
        upstreamModel: null,
        attempts: 1,
        stream: false,
        status: ["ok", "ok", "failed", "aborted", "interrupted"][random(5)]!,
        reason: null,
        inputTokens: random(1000),
        outputTokens: random(500),
        cachedTokens: random(100),
        cacheWriteTokens: random(50),
        estimated: false,
        costMicros: random(5000),
        durationMs: 1,
      });
    });
    assert.deepEqual((await Promise.all(settlements)).flat(), []);
    const ledger = await db.kysely.selectFrom("ledger").selectAll().execute();
    assert.equal(ledger.length, 400);

    const sums = (rows: LedgerRow[]) => ({
      requests: rows.length,
      errors: rows.filter((row) => row.status === "failed" || row.status === "interrupted")
        .length,
      input_tokens: rows.reduce((sum, row) => sum + row.input_tokens, 0),
      output_tokens: rows.reduce((sum, row) => sum + row.output_tokens, 0),
      cached_tokens: rows.reduce((sum, row) => sum + row.cached_tokens, 0),
      cache_write_tokens: rows.reduce((sum, row) => sum + row.cache_write_tokens, 0),
      cost_micros: rows.reduce((sum, row) => sum + row.cost_micros, 0),
    });
    const scopes: UsageScope[] = [{}, { model: "m2" }, { accountId: accounts[1]!.id }];
    for (let i = 0; i < 40; i++) {
      // Whole days, whole hours and odd milliseconds, inside a day or across several.
      const unit = [1, HOUR_MS, DAY_MS][random(3)]!;
      const since = random(4) === 0 ? undefined : base - DAY_MS + random(6 * DAY_MS / unit) * unit;
      const length = [random(HOUR_MS), random(DAY_MS), random(4 * DAY_MS)][random(3)]!;
      const until = random(4) === 0 ? undefined : (since ?? base) + length;
      scopes.push({ since, until, keyId: random(2) === 0 ? keys[0]!.id : undefined });
    }
    for (const scope of scopes) {
      const selected = ledger.filter((row) =>
        (scope.since === undefined || row.created_at >= scope.since) &&
        (scope.until === undefined || row.created_at < scope.until) &&
        (scope.model === undefined || row.model === scope.model) &&
        (scope.keyId === undefined || row.key_id === scope.keyId) &&
        (scope.accountId === undefined || row.account_id === scope.accountId)
      );
      const byKey = await usageByKey(db.kysely, scope);
      const expected = new Map<string, LedgerRow[]>();
      for (const row of selected) {
        const name = `${row.key_id}/${row.model}`;
        expected.set(name, [...expected.get(name) ?? [], row]);
      }
      assert.equal(byKey.length, expected.size, JSON.stringify(scope));
      for (const row of byKey) {
        const { account: _, key_id, model, ...figures } = row;
        assert.deepEqual(figures, sums(expected.get(`${key_id}/${model}`)!), JSON.stringify(scope));
      }
      for (const [bucket, ms] of [["hour", HOUR_MS], ["day", DAY_MS]] as const) {
        const series = await usageSeries(db.kysely, scope, bucket);
        const buckets = new Map<number, LedgerRow[]>();
        for (const row of selected) {
          const t = row.created_at - (row.created_at % ms);
          buckets.set(t, [...buckets.get(t) ?? [], row]);
        }
        assert.deepEqual(
          series,
          [...buckets].sort(([a], [b]) => a - b).map(([t, rows]) => ({ t, ...sums(rows) })),
          `${bucket}: ${JSON.stringify(scope)}`,
        );
      }
    }
    // Sorted by cost, largest first.
    const all = await usageByKey(db.kysely, {});
    assert.deepEqual(
      all.map((row) => row.cost_micros),
      all.map((row) => row.cost_micros).sort((a, b) => b - a),
    );
  } finally {
    await db.close();
  }
}
