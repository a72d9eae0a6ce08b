/**
 * Crash: a real `tollgate serve` process killed with SIGKILL during streams. After a
 * restart no hold remains, no settled row is lost, every request in flight has an
 * `interrupted` row billed for its estimated input, and balances and the hourly usage
 * rollups equal the ledger.
 */
import assert from "node:assert/strict";
import { issueKey } from "../src/auth/issue_key.ts";
import { createAccount } from "../src/db/accounts.ts";
import { openDatabase } from "../src/db/database.ts";
import { readSse } from "../src/upstream/sse.ts";
import {
  assertRollupsMatchLedger,
  chatBody,
  countHolds,
  PRICED_MODEL,
  waitUntil,
} from "./accounting_support.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith, databaseSection } from "./harness.ts";
import { type ServerProcess, spawnServer } from "./process.ts";

Deno.test("invariant: a crash loses no settled row, leaves no hold behind, and interrupts what was in flight", async () => {
  const fake = await startFakeUpstream({ name: "up" });
  const dir = await Deno.makeTempDir({ prefix: "tollgate_crash_" });
  const configPath = `${dir}/config.toml`;
  await Deno.writeTextFile(
    configPath,
    `[server]\nlisten = "127.0.0.1:0"\n${databaseSection(dir)}\n` +
      configWith(
        channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["priced"] }),
        PRICED_MODEL,
      ),
  );
  const db = await openDatabase(`file:${dir}/tollgate.db`);
  const streams: ReadableStream<Uint8Array>[] = [];
  let server: ServerProcess | undefined;
  try {
    await db.migrate();
    const account = (await createAccount(db.kysely, {
      name: "crash",
      balanceMicros: 1_000_000,
      unlimited: false,
      createdAt: Date.now(),
    }))!;
    const { secret } = await issueKey(db.kysely, {
      accountId: account.id,
      group: "default",
      createdAt: 0,
    });
    const post = (url: string, body: unknown) =>
      fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    server = await spawnServer(configPath);
    const settled = await post(server.url, chatBody("settled before the crash"));
    assert.equal(settled.status, 200);
    await settled.text();
    // The answer goes out before its row is written: a settled row is one in the database.
    await waitUntil(
      async () => (await db.kysely.selectFrom("ledger").selectAll().execute()).length === 1,
      "the first row",
    );

    // Three streams get their first chunks, then the upstream stalls: holds are in place.
    const gate = Promise.withResolvers<void>();
    fake.setBehaviour({ gate: gate.promise, gateAfter: 2 });
    for (let i = 0; i < 3; i++) {
      const response = await post(server.url, chatBody(`stream ${i} words`, { stream: true }));
      const events = readSse(response.body!)[Symbol.asyncIterator]();
      assert.equal((await events.next()).done, false);
      streams.push(response.body!);
    }
    // The server writes the holds' rows with its next settlement batch, a few ms on.
    await waitUntil(async () => await countHolds(db) === 3, "the three holds in the database");

    server.child.kill("SIGKILL");
    await server.child.status;
    gate.resolve();

    server = await spawnServer(configPath);
    assert.equal(await countHolds(db), 0);
    const rows = await db.kysely.selectFrom("ledger").selectAll().orderBy("id").execute();
    assert.deepEqual(rows.map((row) => row.status), [
      "ok",
      "interrupted",
      "interrupted",
      "interrupted",
    ]);
    for (const row of rows.slice(1)) {
      assert.equal(row.estimated, 1);
      assert.ok(row.input_tokens > 0, "billed for its estimated input");
      assert.equal(row.output_tokens, 0);
    }
    const after = await db.kysely.selectFrom("accounts").selectAll().where("id", "=", account.id)
      .executeTakeFirstOrThrow();
    assert.equal(after.held_micros, 0);
    const charged = rows.reduce((sum, row) => sum + row.cost_micros, 0);
    assert.equal(after.balance_micros, 1_000_000 - charged);
    const key = await db.kysely.selectFrom("api_keys").select("held_tokens")
      .executeTakeFirstOrThrow();
    assert.equal(key.held_tokens, 0);
    // The interrupted rows are in the hourly rollups too, as every settled one.
    assert.equal(await assertRollupsMatchLedger(db), 4);

    // The restarted server serves and settles as before.
    const again = await post(server.url, chatBody("after the restart"));
    assert.equal(again.status, 200);
    await again.text();
    await waitUntil(
      async () => (await db.kysely.selectFrom("ledger").selectAll().execute()).length === 5,
      "the row of the request after the restart",
    );
  } finally {
    for (const stream of streams) await stream.cancel().catch(() => {});
    if (server) {
      server.child.kill("SIGTERM");
      await server.child.status;
    }
    await db.close();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});
