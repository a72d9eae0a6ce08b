/**
 * Budgets and alerts across two real `tollgate serve` processes on one PostgreSQL: 30
 * concurrent requests spread over both nodes against a key budget 5 requests wide are held
 * exactly 5 times; the events are delivered once each, whichever node claims them.
 */
import assert from "node:assert/strict";
import { openDatabase } from "../src/db/database.ts";
import { newEventId } from "../src/db/alert_rows.ts";
import { waitUntil } from "./accounting_support.ts";
import { alertsSection, startReceiver } from "./alerts_support.ts";
import { DEAR_MODEL, dearBody } from "./budgets_cases.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith } from "./harness.ts";
import { startPostgres } from "./postgres.ts";
import { runTollgate, type ServerProcess, spawnServer } from "./process.ts";

Deno.test("budgets and alerts on two nodes of one PostgreSQL", async (t) => {
  const cluster = await startPostgres();
  const fake = await startFakeUpstream({ name: "up" });
  const receiver = await startReceiver();
  const dir = await Deno.makeTempDir({ prefix: "tollgate_budgets_multinode_" });
  const databaseUrl = await cluster.createDatabase();
  const configPath = `${dir}/config.toml`;
  await Deno.writeTextFile(
    configPath,
    `[server]\nlisten = "127.0.0.1:0"\n[database]\nurl = "${databaseUrl}"\n` +
      configWith(
        channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["dear"] }),
        `${DEAR_MODEL}\n${alertsSection(receiver.url, "thresholds = [0.5, 0.8]")}`,
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
    const key = JSON.parse(
      await cli("key", "create", "--account", "team", "--budget", "0.05", "--json"),
    );

    await t.step(
      "30 concurrent requests over 2 nodes, a budget 5 wide: exactly 5 held",
      async () => {
        const gate = Promise.withResolvers<void>();
        fake.setBehaviour({ gate: gate.promise, reply: { text: "ok" } });
        let refused = 0;
        const pending = Array.from(
          { length: 30 },
          (_, i) =>
            fetch(`${nodes[i % 2]!.url}/v1/chat/completions`, {
              method: "POST",
              headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
              body: JSON.stringify(dearBody(`request ${i}`)),
            }).then(async (response) => {
              if (response.status === 403) {
                assert.equal((await response.json()).error.code, "budget_exceeded");
                refused++;
              }
              return response;
            }),
        );
        await waitUntil(
          () => refused + fake.requests.length === 30,
          "all 30 decided",
          4_000,
        );
        assert.equal(fake.requests.length, 5);
        assert.equal(refused, 25);
        const held = await db.kysely.selectFrom("api_keys").select("budget_held_micros")
          .where("id", "=", key.id).executeTakeFirstOrThrow();
        assert.equal(Number(held.budget_held_micros), 50_000);
        gate.resolve();
        for (const response of await Promise.all(pending)) {
          if (!response.bodyUsed) await response.text();
        }
        await waitUntil(
          async () => (await db.kysely.selectFrom("ledger").selectAll().execute()).length === 5,
          "5 ledger rows",
        );
        const listed = JSON.parse(await cli("key", "list", "--account", "team", "--json"))[0];
        assert.equal(listed.budget_usd, 0.05);
        assert.equal(listed.budget_source, "own");
        assert.equal(listed.budget_spent_usd, 0.05);
      },
    );

    await t.step("two nodes deliver each event once", async () => {
      // Twenty more events at once, beside the budget's: both nodes look every second.
      for (let i = 0; i < 20; i++) {
        await db.client.execute({
          sql: `INSERT INTO alert_events (id, type, scope, threshold_ppm, created_at, facts)
            VALUES (?, 'test', NULL, NULL, ?, ?)`,
          args: [newEventId(), Date.now(), JSON.stringify({ webhooks: ["ops"] })],
        });
      }
      const events = await db.kysely.selectFrom("alert_events").select("id").execute();
      // 0.5, 0.8, the exhausted budget (a refusal's), and the twenty.
      assert.equal(events.length, 23);
      await waitUntil(
        async () => {
          const delivered = await db.kysely.selectFrom("alert_deliveries").selectAll()
            .where("status", "=", "delivered").execute();
          return delivered.length === 23;
        },
        "23 deliveries",
        3_000,
      );
      assert.equal(receiver.received.length, 23);
      assert.equal(new Set(receiver.received.map((one) => one.id)).size, 23);
      assert.ok(receiver.received.every((one) => one.verified));
      const list = JSON.parse(await cli("alerts", "list", "--json"));
      assert.equal(list.length, 23);
      assert.ok(
        list.every((event: { deliveries: { attempts: number }[] }) =>
          event.deliveries[0]!.attempts === 1
        ),
      );
    });
  } finally {
    for (const node of nodes) {
      node.child.kill("SIGTERM");
      await node.child.status;
    }
    await db.close();
    await receiver.close();
    await fake.close();
    await cluster.close();
    await Deno.remove(dir, { recursive: true });
  }
});
