/**
 * Graceful shutdown of a real `tollgate serve` process: on SIGTERM it stops accepting,
 * lets streams in flight finish within `shutdown_grace_ms`, ends the rest with the
 * protocol's error event, settles everything and exits 0.
 */
import assert from "node:assert/strict";
import { issueKey } from "../src/auth/issue_key.ts";
import { createAccount } from "../src/db/accounts.ts";
import { openDatabase } from "../src/db/database.ts";
import { shuttingDown } from "../src/relay/verdict.ts";
import { countHolds } from "./accounting_support.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith, databaseSection } from "./harness.ts";
import { spawnServer } from "./process.ts";
import { messagesBody } from "./support.ts";

/** A served gateway process with a gated messages upstream, and a key. */
async function setUp(graceMs: number) {
  const gate = Promise.withResolvers<void>();
  const fake = await startFakeUpstream({ behaviour: { gate: gate.promise, gateAfter: 2 } });
  const dir = await Deno.makeTempDir({ prefix: "tollgate_shutdown_" });
  const configPath = `${dir}/config.toml`;
  await Deno.writeTextFile(
    configPath,
    `[server]\nlisten = "127.0.0.1:0"\nshutdown_grace_ms = ${graceMs}\n${databaseSection(dir)}\n` +
      configWith(channel({ name: "up", protocol: "messages", baseUrl: fake.url, models: ["m"] })),
  );
  const db = await openDatabase(`file:${dir}/tollgate.db`);
  await db.migrate();
  const account = (await createAccount(db.kysely, {
    name: "a",
    balanceMicros: 0,
    unlimited: true,
    createdAt: 0,
  }))!;
  const { secret } = await issueKey(db.kysely, {
    accountId: account.id,
    group: "default",
    createdAt: 0,
  });
  const server = await spawnServer(configPath);
  return {
    gate,
    server,
    db,
    stream: () =>
      fetch(`${server.url}/v1/messages`, {
        method: "POST",
        headers: { "x-api-key": secret, "content-type": "application/json" },
        body: JSON.stringify(messagesBody("m", "one two three", { stream: true })),
      }),
    /** Resolves once the server refuses new connections: it has begun shutting down. */
    async stoppedAccepting() {
      for (;;) {
        const refused = await fetch(`${server.url}/v1/models`).then(
          async (response) => void await response.body?.cancel(),
          () => true,
        );
        if (refused) return;
      }
    },
    async close() {
      gate.resolve();
      await fake.close();
      await db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("shutdown: SIGTERM lets a stream in flight finish, settles it and exits 0", async () => {
  const t = await setUp(60_000);
  try {
    const response = await t.stream();
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value ?? "";
    t.server.child.kill("SIGTERM");
    await t.stoppedAccepting();
    t.gate.resolve();
    for (let step = await reader.read(); !step.done; step = await reader.read()) text += step.value;
    assert.match(text, /event: message_stop/, "the stream finished normally");
    assert.equal((await t.server.child.status).code, 0);
    const rows = await t.db.kysely.selectFrom("ledger").selectAll().execute();
    assert.deepEqual(rows.map((row) => row.status), ["ok"]);
  } finally {
    await t.close();
  }
});

Deno.test("shutdown: after the grace period a stream ends with the protocol's error event", async () => {
  const t = await setUp(100);
  try {
    const response = await t.stream();
    const text = response.body!.pipeThrough(new TextDecoderStream());
    t.server.child.kill("SIGTERM");
    let all = "";
    for await (const piece of text) all += piece;
    assert.match(all, /event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error"/);
    assert.match(all, /shutting down/);
    assert.equal((await t.server.child.status).code, 0);
    const rows = await t.db.kysely.selectFrom("ledger").selectAll().execute();
    assert.deepEqual(rows.map((row) => [row.status, row.reason]), [
      ["failed", shuttingDown().message],
    ]);
    assert.equal(await countHolds(t.db), 0);
  } finally {
    await t.close();
  }
});
