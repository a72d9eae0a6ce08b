/**
 * Deliveries across a crash: a real `tollgate serve` process announces a crossed budget
 * threshold to a receiver that answers 500 twice and is then down; the process is killed
 * with SIGKILL and started again, the receiver comes back, and the event is delivered,
 * signed, under the same `webhook-id`. Retries are made due by moving the delivery's
 * `next_at` in the database rather than waiting out the backoff.
 */
import assert from "node:assert/strict";
import { issueKey } from "../src/auth/issue_key.ts";
import { createAccount } from "../src/db/accounts.ts";
import { openDatabase } from "../src/db/database.ts";
import { waitUntil } from "./accounting_support.ts";
import { alertsSection, startReceiver } from "./alerts_support.ts";
import { DEAR_MODEL, dearBody } from "./budgets_cases.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith, databaseSection } from "./harness.ts";
import { type ServerProcess, spawnServer } from "./process.ts";

Deno.test("alerts: a delivery survives a crash of the gateway and an outage of the receiver", async () => {
  const fake = await startFakeUpstream({ name: "up" });
  fake.setBehaviour({ reply: { text: "ok" } });
  let receiver = await startReceiver({ answer: (n) => n <= 2 ? 500 : 204 });
  const port = receiver.port;
  const dir = await Deno.makeTempDir({ prefix: "tollgate_alerts_crash_" });
  const configPath = `${dir}/config.toml`;
  await Deno.writeTextFile(
    configPath,
    `[server]\nlisten = "127.0.0.1:0"\n${databaseSection(dir)}\n` +
      configWith(
        channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["dear"] }),
        `${DEAR_MODEL}\n[groups.default.key_budget]\nusd = 0.02\n\n` +
          alertsSection(receiver.url, "thresholds = [0.5]"),
      ),
  );
  const db = await openDatabase(`file:${dir}/tollgate.db`);
  let server: ServerProcess | undefined;
  const deliveries = () => db.kysely.selectFrom("alert_deliveries").selectAll().execute();
  const due = () => db.kysely.updateTable("alert_deliveries").set({ next_at: 0 }).execute();
  try {
    await db.migrate();
    const account = (await createAccount(db.kysely, {
      name: "team",
      balanceMicros: 0,
      unlimited: true,
    }))!;
    const { secret } = await issueKey(db.kysely, {
      accountId: account.id,
      group: "default",
      createdAt: 0,
    });
    server = await spawnServer(configPath);
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify(dearBody("half the budget")),
    });
    assert.equal(response.status, 200);
    await response.text();

    await receiver.receivedCount(1);
    await waitUntil(async () => (await deliveries())[0]?.attempts === 1, "the first attempt");
    await due();
    await receiver.receivedCount(2);
    await waitUntil(async () => (await deliveries())[0]?.attempts === 2, "the second attempt");
    const seen = [...receiver.received];
    // The receiver goes down; the next attempt finds nothing there.
    await receiver.close();
    await due();
    await waitUntil(
      async () => (await deliveries())[0]?.attempts === 3,
      "the third attempt",
      2_000,
    );
    assert.equal((await deliveries())[0]!.status, "pending");

    server.child.kill("SIGKILL");
    await server.child.status;
    receiver = await startReceiver({ port });
    server = await spawnServer(configPath);
    await due();
    await receiver.receivedCount(1);
    await waitUntil(
      async () => (await deliveries())[0]?.status === "delivered",
      "the delivery after the restart",
    );
    const [delivery] = await deliveries();
    assert.equal(delivery!.attempts, 4);
    assert.equal(delivery!.last_error, null);
    const all = [...seen, ...receiver.received];
    assert.equal(all.length, 3);
    assert.ok(all.every((one) => one.verified), "each attempt signed");
    assert.equal(new Set(all.map((one) => one.id)).size, 1, "one webhook-id throughout");
    assert.equal(all[2]!.payload.type, "budget.threshold_crossed");
  } finally {
    if (server) {
      server.child.kill("SIGTERM");
      await server.child.status;
    }
    await receiver.close().catch(() => {});
    await db.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});
