import assert from "node:assert/strict";
import type { SseEvent } from "../translate/sse.ts";
import type { StreamConverter } from "../translate/translation.ts";
import { AlarmClock, type Ringing } from "../clock/alarm_clock.ts";
import { ManualClock } from "../../tests/fakes/manual_clock.ts";
import type { UpstreamExchange } from "../upstream/call.ts";
import type { RelayOutcome } from "./outcome.ts";
import { type Leg, relayStream, type StreamRelay } from "./stream.ts";
import type { SseBatch } from "../upstream/sse.ts";
import { protocolOf } from "../protocols/index.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A converter that passes every batch on as it came. */
function passthrough(): StreamConverter {
  return {
    events: (batch: SseEvent[]) => batch,
    end: () => [],
    error: () => [],
    failure: () => undefined,
    usage: () => undefined,
    outputText: () => "",
    resume: () => undefined,
  };
}

/** An exchange whose upstream sends nothing after its first event until `next` is answered. */
function silentExchange(clock: AlarmClock): UpstreamExchange {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    within: (promise) => promise,
    idle: { start: () => clock.now(), end: () => clock.now() },
    deadline: () => ({ end: () => {} }),
    abort: (failure) => controller.abort(failure),
    finish: () => {},
  };
}

/** Events that never come: the upstream is silent until the stream is cancelled. */
function silentEvents(): AsyncIterator<SseBatch> {
  const ended = Promise.withResolvers<IteratorResult<SseBatch>>();
  return {
    next: () => ended.promise,
    return: () => {
      ended.resolve({ done: true, value: undefined });
      return ended.promise;
    },
  };
}

const FIRST = "data: first\n\n";

/** A chat stream's relay whose committed leg held back FIRST and goes on with `events`. */
function relayOf(
  options:
    & { events: AsyncIterator<SseBatch>; converter: StreamConverter }
    & Pick<
      StreamRelay,
      "keepalive" | "onEnd"
    >,
): ReadableStream<Uint8Array> {
  const leg: Leg = {
    attempt: undefined as never,
    record: { channel: "c", model: "m", upstreamModel: "m", outcome: "ok" },
    reported: () => undefined,
    exchange: silentExchange(options.keepalive.clock),
    events: options.events,
    converter: options.converter,
    upstream: protocolOf("chat"),
    held: [encoder.encode(FIRST)],
    ended: false,
  };
  return relayStream({
    first: Promise.resolve(leg),
    keepalive: options.keepalive,
    entry: protocolOf("chat"),
    requestId: "req_test",
    rescue: () => Promise.resolve(undefined),
    onEnd: options.onEnd,
  });
}
const KEEPALIVE = ": keep-alive\n\n";

/** A client reading a stream's body: what it read so far, chunk by chunk. */
function readingClient(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const chunks: string[] = [];
  return {
    chunks,
    /** Reads chunks until one has `text` in it. */
    async until(text: string): Promise<void> {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before "${text}"`);
        chunks.push(decoder.decode(value));
        if (chunks.at(-1)!.includes(text)) return;
      }
    },
    /** Reads to the end of the body. */
    async rest(): Promise<string[]> {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return chunks;
        chunks.push(decoder.decode(value));
      }
    },
    /** The next chunk if one is queued now, else "nothing queued" (no waiting). */
    async queued(): Promise<string> {
      // A read of a queued chunk is settled at once, so it wins the race with a settled value.
      const read = await Promise.race([reader.read(), Promise.resolve(undefined)]);
      if (read === undefined) return "nothing queued";
      return read.value ? decoder.decode(read.value) : "ended";
    },
    cancel: () => reader.cancel(),
  };
}

Deno.test("stream: silent streams get keep-alives from one clock, which holds nothing once they end", async () => {
  const clock = new ManualClock();
  const ended: RelayOutcome[] = [];
  const clients = Array.from({ length: 3 }, () =>
    readingClient(relayOf({
      events: silentEvents(),
      keepalive: { ms: 10, bytes: encoder.encode(KEEPALIVE), clock },
      converter: passthrough(),
      onEnd: (outcome) => void ended.push(outcome),
    })));
  await Promise.all(clients.map((client) => client.until(FIRST)));
  // Every stream's next keep-alive is an alarm of the shared clock, not a timer of its own.
  assert.equal(clock.size, 3);
  clock.advance(10);
  for (const client of clients) {
    await client.until(KEEPALIVE);
    assert.equal(client.chunks[0], FIRST);
    await client.cancel();
  }
  assert.equal(clock.size, 0, "an ended stream leaves no alarm (and the test no timer)");
  assert.deepEqual(ended.map((outcome) => outcome.status), ["aborted", "aborted", "aborted"]);
});

Deno.test("stream: a client that stopped reading gets one keep-alive queued, not one a ring", async () => {
  const ms = 5;
  let rings = 0;
  // The app's clock, counting its alarms' rings.
  const clock = new class extends ManualClock {
    override alarm(target: Ringing) {
      return super.alarm({
        ring(now) {
          target.ring(now);
          rings++;
        },
      });
    }
  }();
  const client = readingClient(relayOf({
    events: silentEvents(),
    keepalive: { ms, bytes: encoder.encode(KEEPALIVE), clock },
    converter: passthrough(),
    onEnd: () => {},
  }));
  await client.until(FIRST);
  // The client reads nothing more while the alarm rings three times.
  for (let ring = 0; ring < 3; ring++) clock.advance(ms);
  assert.equal(rings, 3);
  assert.equal(await client.queued(), KEEPALIVE);
  assert.equal(await client.queued(), "nothing queued");
  await client.cancel();
  assert.equal(clock.size, 0);
});

Deno.test("stream: no keep-alive alarm when keep-alives are off", async () => {
  const clock = new AlarmClock();
  const client = readingClient(relayOf({
    events: silentEvents(),
    keepalive: { ms: 0, bytes: encoder.encode(KEEPALIVE), clock },
    converter: passthrough(),
    onEnd: () => {},
  }));
  await client.until(FIRST);
  assert.equal(clock.size, 0);
  await client.cancel();
});

/**
 * Events that end after `batches`, each its own network read; with `lastKnown` the last
 * batch says the body ended with it (as tollgate's HTTP/1.1 body tells), else the end
 * comes as one more read.
 */
function eventsOf(batches: string[], lastKnown = false): AsyncIterator<SseBatch> {
  const left = [...batches];
  return {
    next: () => {
      const data = left.shift();
      if (data === undefined) return Promise.resolve({ done: true, value: undefined });
      const batch: SseBatch = { events: [{ data }], bytes: encoder.encode(`data: ${data}\n\n`) };
      if (lastKnown && left.length === 0) batch.last = true;
      return Promise.resolve({ done: false, value: batch });
    },
  };
}

Deno.test("stream: the closing events of a translation go out with the last batch when the body ended with it", async () => {
  const closing: SseEvent = { event: "message_stop", data: '{"type":"message_stop"}' };
  const translating = { ...passthrough(), end: () => [closing] };
  const ended: RelayOutcome[] = [];
  const relay = (converter: StreamConverter, lastKnown = false) =>
    readingClient(relayOf({
      events: eventsOf(['{"n":2}', "[DONE]"], lastKnown),
      keepalive: { ms: 0, bytes: encoder.encode(KEEPALIVE), clock: new AlarmClock() },
      converter,
      onEnd: (outcome) => void ended.push(outcome),
    })).rest();

  const stop = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
  const second = 'data: {"n":2}\n\n';
  const done = "data: [DONE]\n\n";
  assert.deepEqual(await relay(translating), [FIRST, second, done, stop]);
  assert.deepEqual(await relay(passthrough()), [FIRST, second, done]);
  // The body ended with the last batch: the closing events go out with it, in one chunk.
  assert.deepEqual(await relay(translating, true), [FIRST, second, `${done}${stop}`]);
  assert.deepEqual(await relay(passthrough(), true), [FIRST, second, done]);
  assert.deepEqual(ended.map((outcome) => outcome.status), ["ok", "ok", "ok", "ok"]);
});

Deno.test("stream: a batch that converts to nothing does not leave the client waiting", async () => {
  // A converter that swallows the upstream's "skip" events (as translation swallows pings).
  const swallowing = {
    ...passthrough(),
    events: (batch: SseEvent[]) => batch.filter((event) => event.data !== '{"skip":1}'),
  };
  const chunks = await readingClient(relayOf({
    events: eventsOf(['{"skip":1}', '{"skip":1}', "[DONE]"]),
    keepalive: { ms: 0, bytes: encoder.encode(KEEPALIVE), clock: new AlarmClock() },
    converter: swallowing,
    onEnd: () => {},
  })).rest();
  assert.deepEqual(chunks, [FIRST, "data: [DONE]\n\n"]);
});

Deno.test("stream: a stream that ends without its terminal event ends with an error event, billed as failed", async () => {
  const ended: RelayOutcome[] = [];
  const chunks = await readingClient(relayOf({
    events: eventsOf(['{"n":2}']),
    keepalive: { ms: 0, bytes: encoder.encode(KEEPALIVE), clock: new AlarmClock() },
    converter: passthrough(),
    onEnd: (outcome) => void ended.push(outcome),
  })).rest();
  assert.deepEqual(chunks.slice(0, 2), [FIRST, 'data: {"n":2}\n\n']);
  assert.equal(chunks.length, 2, "the passthrough converter writes no error event of its own");
  assert.deepEqual(ended.map((outcome) => outcome.status), ["failed"]);
});
