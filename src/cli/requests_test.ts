import assert from "node:assert/strict";
import { settleRequest, withCli } from "./test_harness.ts";

/** Five requests of one key a minute apart, the last one failed; returns the key id. */
async function fiveRequests(cli: Parameters<Parameters<typeof withCli>[0]>[0]) {
  await cli.run(["account", "create", "alice", "--unlimited"]);
  const key = JSON.parse((await cli.run(["key", "create", "--account", "alice", "--json"])).stdout);
  const start = Date.parse("2030-01-01T00:00:00Z");
  await settleRequest(
    cli.dbPath,
    ...Array.from({ length: 5 }, (_, i) => ({
      account: 1,
      key: key.id,
      model: "echo",
      at: start + i * 60_000,
      cost: 10 + i,
      status: i === 4 ? "failed" : "ok",
      requestId: `req_${i}`,
    })),
  );
  return key.id as string;
}

Deno.test("requests pages newest first by --limit with --offset or --before the last id", async () => {
  await withCli(async (cli) => {
    await fiveRequests(cli);
    const page = async (...args: string[]) => {
      const run = await cli.run(["requests", "--json", ...args]);
      assert.equal(run.code, 0, run.stderr);
      return JSON.parse(run.stdout) as { id: number; request_id: string }[];
    };
    const first = await page("--limit", "2");
    assert.deepEqual(first.map((row) => row.request_id), ["req_4", "req_3"]);
    const next = await page("--limit", "2", "--before", String(first.at(-1)!.id));
    assert.deepEqual(next.map((row) => row.request_id), ["req_2", "req_1"]);
    const skipped = await page("--limit", "2", "--offset", "2");
    assert.deepEqual(skipped, next);
    assert.deepEqual(
      (await page("--since", "2030-01-01T00:01:00Z", "--until", "2030-01-01T00:03:00Z"))
        .map((row) => row.request_id),
      ["req_2", "req_1"],
    );
    assert.deepEqual((await page("--status", "failed")).map((row) => row.request_id), ["req_4"]);
    for (
      const args of [
        ["--limit", "0"],
        ["--limit", "1001"],
        ["--offset", "-1"],
        ["--before", "x"],
        ["--offset", "1", "--before", "3"],
        ["--until", "later"],
        ["--status", "odd"],
      ]
    ) {
      const run = await cli.run(["requests", ...args]);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
    }
  });
});

Deno.test("requests --id shows one request in full; an unknown id exits 1", async () => {
  await withCli(async (cli) => {
    const key = await fiveRequests(cli);
    const one = await cli.run(["requests", "--id", "req_2"]);
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /^id +\d+$/m);
    assert.match(one.stdout, /^request_id +req_2$/m);
    assert.match(one.stdout, new RegExp(`^key_id +${key}$`, "m"));
    assert.match(one.stdout, /^cost_usd +0\.000012$/m);
    const none = await cli.run(["requests", "--id", "req_none"]);
    assert.equal(none.code, 1);
    assert.equal(none.stdout, 'No request with id "req_none" in the ledger or the request log.');
  });
});
