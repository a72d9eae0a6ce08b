/**
 * The database going away under a running gateway: requests are refused with 503 in
 * their entry point's shape and nothing is relayed without a hold; when the database
 * comes back, the same process serves again without a restart.
 */
import assert from "node:assert/strict";
import { chatBody, startPricedGateway } from "./accounting_support.ts";
import { startPostgres } from "./postgres.ts";

Deno.test("PostgreSQL unreachable: 503 in the entry point's shape, then recovery without a restart", async () => {
  const cluster = await startPostgres();
  try {
    const { fake, gateway, close } = await startPricedGateway(
      "chat",
      await cluster.createDatabase(),
    );
    try {
      const cached = await gateway.createKey({ balanceUsd: "1" });
      const fresh = await gateway.createKey({ balanceUsd: "1" });
      // Now in the key cache: with the database gone, this one fails at the hold.
      const first = await gateway.post("/v1/chat/completions", cached.secret, chatBody("hi"));
      assert.equal(first.status, 200);
      await first.text();
      await gateway.ledger();
      const relayed = fake.requests.length;

      await cluster.stop();
      const chat = await gateway.post("/v1/chat/completions", cached.secret, chatBody("hi"));
      assert.equal(chat.status, 503);
      assert.equal(chat.headers.get("retry-after"), "1");
      const chatError = (await chat.json()).error;
      assert.equal(chatError.code, "database_unavailable");
      assert.match(chatError.message, /cannot reach its database/);
      assert.equal(typeof chatError.request_id, "string");

      const messages = await gateway.post("/v1/messages", cached.secret, {
        model: "priced",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      });
      assert.equal(messages.status, 503);
      const messagesBody = await messages.json();
      assert.equal(messagesBody.type, "error");
      assert.equal(messagesBody.error.code, "database_unavailable");
      assert.equal(typeof messagesBody.request_id, "string");

      // A key not in the cache cannot even be checked.
      const unchecked = await gateway.post("/v1/chat/completions", fresh.secret, chatBody("hi"));
      assert.equal(unchecked.status, 503);
      assert.equal((await unchecked.json()).error.code, "database_unavailable");

      const ready = await fetch(`${gateway.url}/readyz`);
      assert.equal(ready.status, 503);
      assert.equal((await ready.json()).database, "unreachable");
      assert.equal(fake.requests.length, relayed, "nothing relayed without a hold");

      // Started: the cluster accepts connections again. A connection of the pool the restart
      // broke unnoticed fails its request, and is dropped: a later one gets a new connection.
      await cluster.start();
      const statuses: number[] = [];
      for (let attempt = 0; attempt < 3 && statuses.at(-1) !== 200; attempt++) {
        const again = await gateway.post("/v1/chat/completions", fresh.secret, chatBody("back"));
        statuses.push(again.status);
        await again.body?.cancel();
      }
      assert.equal(statuses.at(-1), 200, `served again once the database is back: ${statuses}`);
      assert.equal((await fetch(`${gateway.url}/readyz`).then((r) => r.json())).database, "ok");
      const rows = await gateway.ledger();
      assert.deepEqual(rows.map((row) => row.status), ["ok", "ok"]);
    } finally {
      await close();
    }
  } finally {
    await cluster.close();
  }
});
