/**
 * The idle timeout of a stream already under way: the client gets what was produced,
 * then the protocol's error event; the request is billed for what was produced.
 */
import assert from "node:assert/strict";
import { readSse } from "../src/upstream/sse.ts";
import { chatBody, PRICED_MODEL } from "./accounting_support.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { scripted } from "./fakes/scripted_upstream.ts";
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

Deno.test("stream: an upstream that sends only comments is ended by the total timeout, with an error event and a ledger row", async () => {
  const head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n" +
    "transfer-encoding: chunked\r\n\r\n";
  const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
  const first = 'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",' +
    '"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}\n\n';
  const upstream = scripted(async (peer) => {
    if (!await peer.request()) return;
    await peer.write(head + chunk(first));
    // A comment every 20 ms: never silent long enough for the idle timeout.
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      await peer.write(chunk(": still thinking\n\n"));
    }
  });
  const gateway = await startGateway(configWith(
    channel({
      name: "up",
      protocol: "chat",
      baseUrl: upstream.url.replace(/\/chat\/completions$/, ""),
      models: ["priced"],
      extra: "timeouts = { idle = 300, total = 800 }",
    }),
    PRICED_MODEL,
  ));
  try {
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    const response = await gateway.post(
      "/v1/chat/completions",
      secret,
      chatBody("alpha", { stream: true }),
    );
    assert.equal(response.status, 200);
    const events = [];
    for await (const event of readSse(response.body!)) events.push(event);
    const last = JSON.parse(events.at(-1)!.data);
    assert.equal(last.error.code, "upstream_timeout");
    assert.match(last.error.message, /800 ms/);
    const [row] = await gateway.ledger();
    assert.equal(row!.status, "failed");
  } finally {
    await gateway.close();
    await upstream.close();
  }
});
