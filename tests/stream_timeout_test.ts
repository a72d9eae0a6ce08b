/**
 * The idle timeout of a stream already under way: the client gets what was produced,
 * then the protocol's error event; the request is billed for what was produced.
 */
import assert from "node:assert/strict";
import { readSse } from "../src/upstream/sse.ts";
import { chatBody, PRICED_MODEL } from "./accounting_support.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith, startGateway } from "./harness.ts";

Deno.test("stream: an upstream silent past the idle timeout ends the stream with a timeout event", async () => {
  const fake = await startFakeUpstream({ name: "up" });
  const gateway = await startGateway(configWith(
    channel({
      name: "up",
      protocol: "chat",
      baseUrl: fake.url,
      models: ["priced"],
      extra: "timeouts = { idle = 200 }",
    }),
    PRICED_MODEL,
  ));
  const gate = Promise.withResolvers<void>();
  try {
    const { secret, account } = await gateway.createKey({ balanceUsd: "1" });
    fake.setBehaviour({ gate: gate.promise, gateAfter: 3 });
    const response = await gateway.post(
      "/v1/chat/completions",
      secret,
      chatBody("alpha beta gamma", { stream: true }),
    );
    assert.equal(response.status, 200);
    const events = [];
    for await (const event of readSse(response.body!)) events.push(event);
    const last = JSON.parse(events.at(-1)!.data);
    assert.equal(last.error.code, "upstream_timeout");
    assert.ok(events.length >= 3, "the produced chunks arrived before the error");

    const [row] = await gateway.ledger();
    assert.equal(row!.status, "failed");
    assert.equal(row!.estimated, 1);
    assert.ok(row!.output_tokens > 0);
    const after = await gateway.account(account);
    assert.equal(after.held_micros, 0);
    assert.equal(after.balance_micros, 1_000_000 - row!.cost_micros);
  } finally {
    gate.resolve();
    await gateway.close();
    await fake.close();
  }
});
