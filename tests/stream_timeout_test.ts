/**
 * The idle timeout of a stream already under way: the client gets what was produced,
 * then the protocol's error event; the request is billed for what was produced. Time
 * moves on a ManualClock: the deadlines ring when the test moves it, whatever the
 * machine's speed.
 */
import assert from "node:assert/strict";
import { readSse } from "../src/upstream/sse.ts";
import type { SseEvent } from "../src/translate/sse.ts";
import { chatBody, PRICED_MODEL } from "./accounting_support.ts";
import { ManualClock } from "./fakes/manual_clock.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { scripted } from "./fakes/scripted_upstream.ts";
import { channel, configWith, startGateway } from "./harness.ts";

/** Every event of a stream, to its end. */
async function eventsOf(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events = [];
  for await (const event of readSse(body)) events.push(event);
  return events;
}

Deno.test("stream: an upstream silent past the idle timeout ends the stream with a timeout event", async () => {
  const fake = await startFakeUpstream({ name: "up" });
  const clock = new ManualClock();
  const gateway = await startGateway(
    configWith(
      channel({
        name: "up",
        protocol: "chat",
        baseUrl: fake.url,
        models: ["priced"],
        extra: "timeouts = { idle = 200 }",
      }),
      PRICED_MODEL,
    ),
    { clock },
  );
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
    // The upstream went silent after its third chunk: time passes until the idle deadline.
    const events = await clock.advanceUntil(eventsOf(response.body!), 50);
    const last = JSON.parse(events.at(-1)!.data);
    assert.equal(last.error.code, "upstream_timeout");
    assert.match(last.error.message, /sent nothing for 200 ms/);
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
  const clock = new ManualClock();
  // Ends the script's sleep when the test is over (the manual clock rings no more then).
  const over = new AbortController();
  const upstream = scripted(async (peer) => {
    if (!await peer.request()) return;
    await peer.write(head + chunk(first));
    // A comment every 100 ms of the gateway's clock: never silent long enough for the
    // idle timeout of 300 ms.
    for (;;) {
      await clock.sleep(100, over.signal);
      await peer.write(chunk(": still thinking\n\n"));
    }
  });
  const gateway = await startGateway(
    configWith(
      channel({
        name: "up",
        protocol: "chat",
        baseUrl: upstream.url.replace(/\/chat\/completions$/, ""),
        models: ["priced"],
        extra: "timeouts = { idle = 300, total = 800 }",
      }),
      PRICED_MODEL,
    ),
    { clock },
  );
  try {
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    const response = await gateway.post(
      "/v1/chat/completions",
      secret,
      chatBody("alpha", { stream: true }),
    );
    assert.equal(response.status, 200);
    const start = clock.now();
    const events = await clock.advanceUntil(eventsOf(response.body!), 50);
    const last = JSON.parse(events.at(-1)!.data);
    assert.equal(last.error.code, "upstream_timeout");
    assert.match(last.error.message, /did not finish within 800 ms/);
    assert.ok(clock.now() - start >= 800 - 50, "the comments kept the idle deadline away");
    const [row] = await gateway.ledger();
    assert.equal(row!.status, "failed");
  } finally {
    over.abort();
    await gateway.close();
    await upstream.close();
  }
});
