/**
 * Channel health on two gateway processes sharing one PostgreSQL: requests answered by
 * either node land in the one channel rollup, so `GET /admin/api/channels` gives both nodes
 * the same last hour and day (the same as the ledger's attempts); a channel whose latest
 * attempt failed on one node is `failing` on the other too, and `up` on both once it
 * served again.
 */
import assert from "node:assert/strict";
import type { ChannelJson } from "../src/admin/channels.ts";
import { openDatabase } from "../src/db/database.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith } from "./harness.ts";
import { startPostgres } from "./postgres.ts";
import { runTollgate, type ServerProcess, spawnServer } from "./process.ts";
import { chatBody, poll } from "./support.ts";

/** The figures every node shares: the rollup's, and the state they give. */
const SHARED: (keyof ChannelJson)[] = [
  "state",
  "requests_1h",
  "ok_1h",
  "errors_1h",
  "requests_24h",
  "ok_24h",
  "errors_24h",
  "p50_ttfb_ms_1h",
  "p50_ttfb_ms_24h",
  "last_error",
  "last_error_status",
  "last_error_at",
  "last_ok_at",
];

Deno.test("channel health is the same on two nodes of one PostgreSQL", async () => {
  const cluster = await startPostgres();
  const fake = await startFakeUpstream({ name: "flaky" });
  const dir = await Deno.makeTempDir({ prefix: "tollgate_channels_" });
  const databaseUrl = await cluster.createDatabase();
  const configPath = `${dir}/config.toml`;
  await Deno.writeTextFile(
    configPath,
    `[server]\nlisten = "127.0.0.1:0"\n[database]\nurl = "${databaseUrl}"\n` +
      configWith(
        channel({ name: "flaky", protocol: "chat", baseUrl: fake.url, models: ["flaky"] }),
        "[failover]\nretries = 0\n",
      ),
  );
  const db = await openDatabase(databaseUrl);
  const nodes: ServerProcess[] = [];
  const cli = async (...args: string[]) => {
    const result = await runTollgate([...args, "--config", configPath]);
    assert.equal(result.code, 0, `tollgate ${args.join(" ")} exited ${result.code}`);
    return result.stdout;
  };
  try {
    nodes.push(...await Promise.all([1, 2].map(() => spawnServer(configPath))));
    await cli("account", "create", "team", "--unlimited");
    const admin = JSON.parse(await cli("key", "create", "--account", "team", "--admin", "--json"))
      .key as string;
    let sent = 0;
    /** A chat request to a node; its status, once its ledger row is written. */
    const ask = async (node: ServerProcess) => {
      const response = await fetch(`${node.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
        body: JSON.stringify(chatBody("flaky")),
      });
      await response.text();
      sent++;
      // Answers go out before their ledger rows.
      await poll(
        async () => (await db.kysely.selectFrom("ledger").select("id").execute()).length === sent,
        "the ledger row",
        10_000,
      );
      return response.status;
    };
    const health = async (node: ServerProcess) => {
      const response = await fetch(`${node.url}/admin/api/channels`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      assert.equal(response.status, 200);
      const [flaky] = await response.json() as ChannelJson[];
      return flaky!;
    };
    const shared = (channel: ChannelJson) =>
      Object.fromEntries(SHARED.map((name) => [name, channel[name]]));

    // Served on both nodes, then a 500 on the first node.
    assert.equal(await ask(nodes[0]!), 200);
    assert.equal(await ask(nodes[1]!), 200);
    fake.setBehaviour({ error: { status: 500, times: 1, message: "The fake broke." } });
    assert.equal(await ask(nodes[0]!), 502);
    const [first, second] = await Promise.all(nodes.map(health));
    assert.deepEqual(shared(second!), shared(first!), "both nodes show the same");
    assert.deepEqual(
      [first!.requests_1h, first!.ok_1h, first!.errors_1h, first!.last_error_status],
      [3, 2, 1, 500],
    );
    // The second node never saw it fail, and still shows it failing.
    assert.deepEqual([second!.state, second!.node_state], ["failing", "up"]);
    assert.equal(first!.state, "failing");
    assert.match(
      first!.last_error!,
      /^The upstream at 127\.0\.0\.1:\d+ answered HTTP 500: The fake broke\.$/,
    );
    // The figures are the ledger's attempts.
    const attempts = (await db.kysely.selectFrom("ledger").select("attempt_log").execute())
      .flatMap((row) => JSON.parse(row.attempt_log!) as { outcome: string }[]);
    assert.deepEqual(
      [attempts.length, attempts.filter((attempt) => attempt.outcome === "ok").length],
      [first!.requests_24h, first!.ok_24h],
    );

    // Served again on the second node: up on both.
    assert.equal(await ask(nodes[1]!), 200);
    const [again, still] = await Promise.all(nodes.map(health));
    assert.deepEqual(shared(still!), shared(again!), JSON.stringify([again, still], null, 1));
    assert.deepEqual([again!.state, again!.requests_1h, again!.errors_1h], ["up", 4, 1]);
  } finally {
    for (const node of nodes) {
      node.child.kill("SIGTERM");
      await node.child.status;
    }
    await db.close();
    await fake.close();
    await cluster.close();
    await Deno.remove(dir, { recursive: true });
  }
});
