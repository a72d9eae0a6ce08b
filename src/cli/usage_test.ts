import assert from "node:assert/strict";
import { settleRequest as settle, withCli } from "./test_harness.ts";

Deno.test("usage sums the ledger by account, key and model, with filters and --json", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice", "--balance", "1"]);
    await cli.run(["account", "create", "bob", "--unlimited"]);
    const aliceKey =
      JSON.parse((await cli.run(["key", "create", "--account", "alice", "--json"])).stdout).id;
    const bobKey =
      JSON.parse((await cli.run(["key", "create", "--account", "bob", "--json"])).stdout).id;
    const day = Date.parse("2026-11-01T00:00:00Z");
    await settle(cli.dbPath, {
      account: 1,
      key: aliceKey,
      model: "echo",
      at: day,
      cost: 1500,
      cached: 40,
    });
    await settle(cli.dbPath, {
      account: 1,
      key: aliceKey,
      model: "echo",
      at: day + 1000,
      cost: 500,
    });
    await settle(cli.dbPath, {
      account: 1,
      key: aliceKey,
      model: "other",
      at: day + 86_400_000,
      cost: 7,
    });
    await settle(cli.dbPath, { account: 2, key: bobKey, model: "echo", at: day, cost: 250 });

    const all = await cli.run(["usage", "--json"]);
    assert.equal(all.code, 0);
    const report = JSON.parse(all.stdout);
    assert.deepEqual(report.totals, {
      requests: 4,
      input_tokens: 400,
      output_tokens: 40,
      cached_tokens: 40,
      cache_write_tokens: 0,
      errors: 0,
      cost_usd: 0.002257,
    });
    assert.deepEqual(report.rows[0], {
      account: "alice",
      key_id: aliceKey,
      model: "echo",
      requests: 2,
      input_tokens: 200,
      output_tokens: 20,
      cached_tokens: 40,
      cache_write_tokens: 0,
      errors: 0,
      cost_usd: 0.002,
    });

    const bob = JSON.parse((await cli.run(["usage", "--account", "bob", "--json"])).stdout);
    assert.deepEqual(bob.rows.map((r: { account: string }) => r.account), ["bob"]);
    const byKeyAndDay = JSON.parse(
      (await cli.run([
        "usage",
        "--key",
        aliceKey,
        "--since",
        "2026-11-02T00:00:00Z",
        "--json",
      ])).stdout,
    );
    assert.deepEqual(byKeyAndDay.rows.map((r: { model: string }) => r.model), ["other"]);
    const until = JSON.parse(
      (await cli.run(["usage", "--until", "2026-11-02", "--model", "echo", "--json"])).stdout,
    );
    assert.equal(until.totals.requests, 3);

    // The ledger's charges reached the balances: alice paid 2007 micros, bob is unlimited.
    const accounts = JSON.parse((await cli.run(["account", "list", "--json"])).stdout);
    assert.equal(accounts.find((a: { name: string }) => a.name === "alice").balance_usd, 0.997993);
    assert.equal(accounts.find((a: { name: string }) => a.name === "bob").balance_usd, 0);

    const table = await cli.run(["usage"]);
    assert.match(table.stdout, /^ACCOUNT\s+KEY\s+MODEL\s+REQUESTS\s+ERRORS/);
    assert.match(table.stdout, /total\s+4\s+0\s+400\s+40\s+40\s+0\.002257$/m);
    assert.equal((await cli.run(["usage", "--since", "yesterday"])).code, 2);
  });
});

Deno.test("usage --bucket adds a series with every bucket of the range, empty ones as zeros", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice", "--unlimited"]);
    const key =
      JSON.parse((await cli.run(["key", "create", "--account", "alice", "--json"])).stdout)
        .id;
    const hour = 3_600_000;
    const start = Date.parse("2030-06-01T00:00:00Z");
    await settle(
      cli.dbPath,
      { account: 1, key, model: "echo", at: start + 10 * 60_000, cost: 100 },
      { account: 1, key, model: "echo", at: start + 50 * 60_000, cost: 200, status: "failed" },
      { account: 1, key, model: "other", at: start + 2 * hour + 1, cost: 400 },
    );
    const report = JSON.parse(
      (await cli.run([
        "usage",
        "--since",
        "2030-06-01T00:30:00Z",
        "--until",
        "2030-06-01T04:00:00Z",
        "--bucket",
        "hour",
        "--json",
      ])).stdout,
    );
    // Exact to the time asked: the first request (00:10) is before --since.
    assert.deepEqual(
      [report.totals.requests, report.totals.errors, report.totals.cost_usd],
      [2, 1, 0.0006],
    );
    assert.deepEqual(
      report.series.map((p: { t: string; requests: number; cost_usd: number }) => [
        p.t,
        p.requests,
        p.cost_usd,
      ]),
      [
        ["2030-06-01T00:00:00.000Z", 1, 0.0002],
        ["2030-06-01T01:00:00.000Z", 0, 0],
        ["2030-06-01T02:00:00.000Z", 1, 0.0004],
        ["2030-06-01T03:00:00.000Z", 0, 0],
      ],
    );
    const days = JSON.parse(
      (await cli.run(["usage", "--bucket", "day", "--until", "2030-06-03", "--json"])).stdout,
    );
    assert.deepEqual(
      days.series.map((p: { t: string; requests: number }) => [p.t, p.requests]),
      [["2030-06-01T00:00:00.000Z", 3], ["2030-06-02T00:00:00.000Z", 0]],
    );
    const table = await cli.run(["usage", "--bucket", "day", "--until", "2030-06-02"]);
    assert.match(
      table.stdout,
      /\n\nTIME\s+REQUESTS\s+ERRORS.*\n2030-06-01T00:00:00\.000Z\s+3\s+1\s/,
    );
    const bad = await cli.run(["usage", "--bucket", "week"]);
    assert.equal(bad.code, 2);
    // Hours since the first usage far back would be too many buckets: a 1, and what to do.
    const tooMany = await cli.run(["usage", "--bucket", "hour", "--until", "2033-01-01"]);
    assert.equal(tooMany.code, 1);
    assert.match(tooMany.stderr, /more than 10000 buckets: give a later since, or bucket=day/);
  });
});

Deno.test("usage of an account or key that does not exist exits 1 naming it", async () => {
  await withCli(async (cli) => {
    const account = await cli.run(["usage", "--account", "nobody"]);
    assert.equal(account.code, 1);
    assert.equal(account.stdout, "");
    assert.match(
      account.stderr,
      /^tollgate: Summing usage failed: account "nobody" does not exist; see "tollgate account list"\.$/,
    );
    const key = await cli.run(["usage", "--key", "key_none", "--json"]);
    assert.equal(key.code, 1);
    assert.match(key.stderr, /key "key_none" does not exist/);
  });
});
