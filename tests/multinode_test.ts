/**
 * Several gateway processes on one PostgreSQL: three real `tollgate serve` processes share
 * a database. Concurrent requests spread over them never overspend and conserve money,
 * rate and concurrency limits admit exactly their number whichever nodes requests reach, a
 * key revoked with the CLI is refused by every node (no node keeps it past its key cache,
 * which tests/key_update_test.ts shows lapses within 2 s of a gateway's clock), and the
 * holds of a node killed with SIGKILL become `interrupted` rows written by the nodes still
 * running.
 */
import assert from "node:assert/strict";
import { openDatabase } from "../src/db/database.ts";
import { readSse } from "../src/upstream/sse.ts";
import {
  assertRollupsMatchLedger,
  chatBody,
  countHolds,
  PRICED_MODEL,
} from "./accounting_support.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith } from "./harness.ts";
import { startPostgres } from "./postgres.ts";
import { poll } from "./support.ts";
import { runTollgate, type ServerProcess, spawnServer } from "./process.ts";

/** A chat request to one node with a key. */
function post(node: ServerProcess, secret: string, body: unknown): Promise<Response> {
  return fetch(`${node.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** The status of `GET /v1/models` on one node with a key (authentication only). */
async function modelsStatus(node: ServerProcess, secret: string): Promise<number> {
  const response = await fetch(`${node.url}/v1/models`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  await response.body?.cancel();
  return response.status;
}

Deno.test("several nodes on one PostgreSQL", async (t) => {
  const cluster = await startPostgres();
  const fake = await startFakeUpstream({ name: "up" });
  const dir = await Deno.makeTempDir({ prefix: "tollgate_multinode_" });
  const databaseUrl = await cluster.createDatabase();
  const configPath = `${dir}/config.toml`;
  await Deno.writeTextFile(
    configPath,
    `[server]\nlisten = "127.0.0.1:0"\n[database]\nurl = "${databaseUrl}"\n` +
      configWith(
        channel({
          name: "up",
          protocol: "chat",
          baseUrl: fake.url,
          models: ["priced"],
          extra: 'groups = ["default", "paced", "parallel"]',
        }),
        `${PRICED_MODEL}\n[groups.paced]\nmodels = ["*"]\nrpm = 20\n` +
          `[groups.parallel]\nmodels = ["*"]\nconcurrency = 3\n`,
      ),
  );
  const db = await openDatabase(databaseUrl);
  const nodes: ServerProcess[] = [];
  const openStreams: ReadableStream<Uint8Array>[] = [];
  const cli = async (...args: string[]) => {
    const result = await runTollgate([...args, "--config", configPath]);
    assert.equal(result.code, 0, `tollgate ${args.join(" ")} exited ${result.code}`);
    return result.stdout;
  };
  const shared = async () =>
    await db.kysely.selectFrom("accounts").selectAll().where("name", "=", "shared")
      .executeTakeFirstOrThrow();
  const ledger = () => db.kysely.selectFrom("ledger").selectAll().orderBy("id").execute();
  try {
    // Three nodes start at once on an empty database: one migrates, the others wait for it.
    nodes.push(...await Promise.all([1, 2, 3].map(() => spawnServer(configPath))));
    // One request holds 1000 micros (max_tokens 1000 at 1 micro a token): 10 fit in $0.01.
    await cli("account", "create", "shared", "--balance", "0.01");
    const { key: secret } = JSON.parse(await cli("key", "create", "--account", "shared", "--json"));

    await t.step(
      "90 concurrent requests over 3 nodes: exactly 10 held, money conserved",
      async () => {
        const gate = Promise.withResolvers<void>();
        fake.setBehaviour({ gate: gate.promise });
        let refused = 0;
        const responses = Array.from(
          { length: 90 },
          (_, i) =>
            post(nodes[i % 3]!, secret, chatBody(`request ${i}`)).then(async (response) => {
              if (response.status === 403) {
                assert.equal((await response.json()).error.code, "insufficient_user_quota");
                refused++;
              }
              return response;
            }),
        );
        // The gate keeps every granted hold in place until all 90 are decided.
        await poll(
          () => refused + fake.requests.length === 90,
          "all 90 decided",
          20_000,
          10,
        );
        assert.equal(fake.requests.length, 10);
        assert.equal(refused, 80);
        assert.equal((await shared()).held_micros, 10_000);
        gate.resolve();
        const statuses = await Promise.all(responses.map(async (pending) => {
          const response = await pending;
          if (!response.bodyUsed) await response.text();
          return response.status;
        }));
        assert.equal(statuses.filter((status) => status === 200).length, 10);

        // Answers go out before their rows: wait for the three nodes' settlements.
        await poll(async () => (await ledger()).length === 10, "10 ledger rows", 10_000);
        const account = await shared();
        const charged = (await ledger()).reduce((sum, row) => sum + row.cost_micros, 0);
        assert.ok(charged > 0);
        assert.ok(account.balance_micros >= 0);
        assert.equal(account.balance_micros + charged, 10_000);
        assert.equal(account.held_micros, 0);
        assert.equal(await countHolds(db), 0);
        // The CLI sums the same ledger.
        const usage = JSON.parse(await cli("usage", "--account", "shared", "--json"));
        assert.deepEqual([usage.totals.requests, usage.totals.cost_usd], [10, charged / 1e6]);
      },
    );

    await t.step("a key revoked with the CLI is refused by every node", async () => {
      const made = JSON.parse(await cli("key", "create", "--account", "shared", "--json"));
      // Every node has the key in its cache: the slowest way for a node to learn of it.
      for (const node of nodes) assert.equal(await modelsStatus(node, made.key), 200);
      await cli("key", "revoke", made.id);
      // The CLI has committed the revocation when it exits: each node learns of it from the
      // database once its key cache lapses (the bound here only keeps a broken node from
      // hanging the test; how soon is key_update_test.ts's, on a clock of the test's own).
      await Promise.all(nodes.map((node) =>
        poll(
          async () => (await modelsStatus(node, made.key)) === 401,
          `${node.url} to refuse the revoked key`,
          30_000,
        )
      ));
    });

    await t.step("limits are exact across nodes: concurrency 3 and rpm 20", async () => {
      await cli("account", "create", "limited", "--unlimited");
      const keyOf = async (group: string) =>
        JSON.parse(
          await cli("key", "create", "--account", "limited", "--group", group, "--json"),
        ).key as string;
      const parallel = await keyOf("parallel");
      const paced = await keyOf("paced");

      // Six at once over the three nodes, held at the upstream: exactly 3 get through.
      const seen = fake.requests.length;
      const gate = Promise.withResolvers<void>();
      fake.setBehaviour({ gate: gate.promise });
      let refused = 0;
      const held = Array.from(
        { length: 6 },
        (_, i) =>
          post(nodes[i % 3]!, parallel, chatBody(`held ${i}`)).then(async (response) => {
            if (response.status === 429) {
              assert.equal((await response.json()).error.code, "rate_limit_exceeded");
              refused++;
            }
            return response;
          }),
      );
      await poll(() => refused + fake.requests.length - seen === 6, "all 6 decided", 20_000, 10);
      assert.equal(fake.requests.length - seen, 3, "3 in flight across the nodes");
      assert.equal(refused, 3);
      gate.resolve();
      for (const response of await Promise.all(held)) {
        if (!response.bodyUsed) await response.text();
      }
      fake.setBehaviour({});

      // 30 in a minute over the three nodes, with rpm 20: exactly 20 admitted.
      const statuses = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const response = await post(nodes[i % 3]!, paced, chatBody(`rate ${i}`));
          if (response.status === 429) assert.ok(response.headers.get("retry-after"));
          await response.text();
          return response.status;
        }),
      );
      assert.equal(statuses.filter((status) => status === 200).length, 20);
      assert.equal(statuses.filter((status) => status === 429).length, 10);
    });

    await t.step(
      "a SIGKILLed node's holds become interrupted rows, written by another node",
      async () => {
        const gate = Promise.withResolvers<void>();
        fake.setBehaviour({ gate: gate.promise, gateAfter: 2 });
        const [victim] = nodes;
        // Answers go out before their ledger rows: the earlier steps' requests are all
        // settled once no hold is left, and only then are the figures to compare taken.
        await poll(async () => (await countHolds(db)) === 0, "earlier settlements", 30_000, 50);
        const before = await shared();
        const settled = (await ledger()).length;
        for (let i = 0; i < 3; i++) {
          const response = await post(victim!, secret, chatBody(`stream ${i}`, { stream: true }));
          openStreams.push(response.body!);
          const events = readSse(response.body!)[Symbol.asyncIterator]();
          assert.equal((await events.next()).done, false);
        }
        assert.equal(await countHolds(db), 3);
        victim!.child.kill("SIGKILL");
        await victim!.child.status;
        gate.resolve();

        // The survivors' next sweep (every 10 s) finds the dead process and its holds, then
        // forgets the process: wait for both, as they are two writes.
        const victimRegistered = async () =>
          (await db.kysely.selectFrom("instances").select("pid").execute())
            .some((instance) => instance.pid === victim!.child.pid);
        await poll(
          async () => (await countHolds(db)) === 0 && !(await victimRegistered()),
          "the holds to be recovered and the dead node forgotten",
          30_000,
          200,
        );
        const rows = (await ledger()).slice(settled);
        assert.deepEqual(rows.map((row) => row.status), [
          "interrupted",
          "interrupted",
          "interrupted",
        ]);
        for (const row of rows) {
          assert.equal(row.estimated, 1);
          assert.ok(row.input_tokens > 0, "billed for its estimated input");
        }
        const after = await shared();
        const charged = rows.reduce((sum, row) => sum + row.cost_micros, 0);
        assert.equal(after.balance_micros, before.balance_micros - charged);
        assert.equal(after.held_micros, 0);
        // Every node's settlements and the interrupted rows are in the hourly rollups.
        assert.equal(await assertRollupsMatchLedger(db), settled + 3);
      },
    );
  } finally {
    for (const stream of openStreams) await stream.cancel().catch(() => {});
    for (const node of nodes) {
      try {
        node.child.kill("SIGTERM");
      } catch {
        // Already gone (the SIGKILLed one).
      }
      await node.child.status;
    }
    await db.close();
    await fake.close();
    await cluster.close();
    await Deno.remove(dir, { recursive: true });
  }
});
