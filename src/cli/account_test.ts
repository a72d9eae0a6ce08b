import assert from "node:assert/strict";
import { withCli } from "./test_harness.ts";

Deno.test("account create, topup and list --json", async () => {
  await withCli(async (cli) => {
    assert.equal((await cli.run(["account", "create", "alice", "--balance", "10.5"])).code, 0);
    assert.equal((await cli.run(["account", "create", "admin", "--unlimited"])).code, 0);
    assert.equal((await cli.run(["account", "create", "bob"])).code, 0);
    const topup = await cli.run(["account", "topup", "alice", "0.1"]);
    assert.equal(topup.code, 0);
    assert.equal(topup.stdout, 'Topped up account "alice" by 0.10 USD; balance is now 10.60 USD.');
    assert.equal((await cli.run(["account", "disable", "bob"])).code, 0);

    const list = await cli.run(["account", "list", "--json"]);
    assert.equal(list.code, 0);
    assert.equal(list.stderr, "");
    assert.deepEqual(JSON.parse(list.stdout), [
      {
        name: "admin",
        enabled: true,
        unlimited: true,
        balance_usd: 0,
        held_usd: 0,
        available_usd: 0,
        budget_usd: null,
        budget_period: null,
        budget_source: null,
        budget_spent_usd: 0,
        budget_renews_at: null,
      },
      {
        name: "alice",
        enabled: true,
        unlimited: false,
        balance_usd: 10.6,
        held_usd: 0,
        available_usd: 10.6,
        budget_usd: null,
        budget_period: null,
        budget_source: null,
        budget_spent_usd: 0,
        budget_renews_at: null,
      },
      {
        name: "bob",
        enabled: false,
        unlimited: false,
        balance_usd: 0,
        held_usd: 0,
        available_usd: 0,
        budget_usd: null,
        budget_period: null,
        budget_source: null,
        budget_spent_usd: 0,
        budget_renews_at: null,
      },
    ]);
  });
});

Deno.test("account list shows an aligned table with unlimited availability", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "admin", "--unlimited"]);
    await cli.run(["account", "create", "alice", "--balance", "2.25"]);
    const list = await cli.run(["account", "list"]);
    assert.equal(list.code, 0);
    const lines = list.stdout.split("\n");
    assert.match(lines[0] ?? "", /^NAME\s+STATUS\s+BALANCE_USD\s+HELD_USD\s+AVAILABLE_USD$/);
    assert.match(lines[1] ?? "", /^admin\s+enabled\s+0\.00\s+0\.00\s+unlimited$/);
    assert.match(lines[2] ?? "", /^alice\s+enabled\s+2\.25\s+0\.00\s+2\.25$/);
    // Aligned: every row is as wide as the header's last column ends.
    assert.equal(new Set(lines.map((line) => line.length)).size, 1);
  });
});

Deno.test("account user errors exit 1 with one line", async () => {
  await withCli(async (cli) => {
    await cli.run(["account", "create", "alice"]);
    for (
      const args of [
        ["account", "create", "alice"],
        ["account", "topup", "nobody", "5"],
        ["account", "disable", "nobody"],
        ["account", "enable", "nobody"],
      ]
    ) {
      const run = await cli.run(args);
      assert.equal(run.code, 1, args.join(" "));
      assert.equal(run.stdout, "");
      assert.equal(run.stderr.split("\n").length, 1, run.stderr);
      assert.doesNotMatch(run.stderr, /\bat .*\.ts:\d+/);
    }
    const duplicate = await cli.run(["account", "create", "alice"]);
    assert.equal(
      duplicate.stderr,
      'tollgate: Creating account "alice" failed: the name is taken; choose another or top up "alice".',
    );
  });
});

Deno.test("account bad usage exits 2", async () => {
  await withCli(async (cli) => {
    for (
      const args of [
        ["account"],
        ["account", "rename", "a"],
        ["account", "create"],
        ["account", "create", "a", "b"],
        ["account", "create", "a", "--balance", "5", "--unlimited"],
        ["account", "create", "a", "--balance", "1.0000001"],
        ["account", "create", "a", "--balance", "abc"],
        ["account", "create", "a", "--frobnicate"],
        ["account", "topup", "a"],
        ["account", "topup", "a", "0"],
        ["account", "list", "--json=yes"],
      ]
    ) {
      const run = await cli.run(args);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, /^tollgate: .+\nUsage:\n {2}tollgate account/);
    }
  });
});
