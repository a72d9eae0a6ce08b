import assert from "node:assert/strict";
import type { SseBatch, SseEvent } from "../protocols/sse.ts";
import type { StreamConverter } from "../translate/translation.ts";
import { AlarmClock, type Ringing } from "../upstream/alarm_clock.ts";
import type { UpstreamExchange } from "../upstream/call.ts";
import type { RelayOutcome } from "./outcome.ts";
import { relayStream } from "./stream.ts";

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
  };
}

/** An exchange whose upstream sends nothing after its first event until `next` is answered. */
function silentExchange(): UpstreamExchange {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    within: (promise) => promise,
    idle: { start: () => performance.now(), end: () => performance.now() },
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
const KEEPALIVE = ": keep-alive\n\n";

/**
 * A client that records what a stream writes (each write, and whether it ended the body),
 * and tells when a write has `text` in it.
 */
function recordingSink() {
  let written = "";
  const writes: { text: string; last: boolean }[] = [];
  const waiting: { text: string; resolve: () => void }[] = [];
  const record = (bytes: Uint8Array, last: boolean): Promise<void> => {
    const text = decoder.decode(bytes);
    writes.push({ text, last });
    written += text;
    for (const wait of waiting) if (written.includes(wait.text)) wait.resolve();
    return Promise.resolve();
  };
  return {
    get written() {
      return written;
    },
    writes,
    write: (bytes: Uint8Array) => record(bytes, false),
    last: (bytes: Uint8Array) => record(bytes, true),
    /** Resolves once the stream wrote `text`. */
    until(text: string): Promise<void> {
      const { promise, resolve } = Promise.withResolvers<void>();
      waiting.push({ text, resolve });
      if (written.includes(text)) resolve();
      return promise;
    },
  };
}

Deno.test("stream: silent streams get keep-alives from one clock, which holds nothing once they end", async () => {
  const clock = new AlarmClock();
  const ended: RelayOutcome[] = [];
  const streams = Array.from({ length: 3 }, () => {
    const stream = relayStream({
      exchange: silentExchange(),
      events: silentEvents(),
      first: { events: [{ data: "first" }], bytes: encoder.encode(FIRST) },
      keepalive: { ms: 10, bytes: encoder.encode(KEEPALIVE), clock },
      converter: passthrough(),
      onEnd: (outcome) => void ended.push(outcome),
    });
    const sink = recordingSink();
    return { stream, sink, piped: stream.pipe(sink) };
  });
  await Promise.all(streams.map(({ sink }) => sink.until(FIRST)));
  // Every stream's next keep-alive is an alarm of the shared clock, not a timer of its own.
  assert.equal(clock.size, 3);
  for (const { stream, sink, piped } of streams) {
    await sink.until(KEEPALIVE);
    assert.ok(sink.written.startsWith(FIRST), sink.written);
    stream.cancel();
    await piped;
  }
  assert.equal(clock.size, 0, "an ended stream leaves no alarm (and the test no timer)");
  assert.deepEqual(ended.map((outcome) => outcome.status), ["aborted", "aborted", "aborted"]);
});

Deno.test("stream: a client still taking a keep-alive is looked at again an interval later, not at once", async () => {
  const ms = 20;
  // The clock's readings at each ring of the stream's alarm.
  const rang: number[] = [];
  const thirdRing = Promise.withResolvers<void>();
  // The app's clock, noting when each of its alarms rings.
  const clock = new class extends AlarmClock {
    override alarm(target: Ringing) {
      return super.alarm({
        ring(now) {
          if (rang.push(now) === 3) thirdRing.resolve();
          target.ring(now);
        },
      });
    }
  }();
  const stream = relayStream({
    exchange: silentExchange(),
    events: silentEvents(),
    first: { events: [{ data: "first" }], bytes: encoder.encode(FIRST) },
    keepalive: { ms, bytes: encoder.encode(KEEPALIVE), clock },
    converter: passthrough(),
    onEnd: () => {},
  });
  // A client that stopped reading: its first keep-alive's write never completes (until freed).
  const stalled = Promise.withResolvers<void>();
  const keepalives: string[] = [];
  const piped = stream.pipe({
    write: (bytes) => {
      const text = decoder.decode(bytes);
      if (text !== KEEPALIVE) return Promise.resolve();
      keepalives.push(text);
      return stalled.promise;
    },
    last: () => Promise.resolve(),
  });
  await thirdRing.promise;
  assert.equal(keepalives.length, 1, "no second keep-alive while the first is being written");
  // Set for a time already past, the alarm would ring again at once, every turn of the loop.
  assert.ok(rang[2]! - rang[1]! >= ms, `rang at ${rang.join(", ")}`);
  stalled.resolve();
  stream.cancel();
  await piped;
  assert.equal(clock.size, 0);
});

Deno.test("stream: no keep-alive alarm when keep-alives are off", async () => {
  const clock = new AlarmClock();
  const stream = relayStream({
    exchange: silentExchange(),
    events: silentEvents(),
    first: { events: [{ data: "first" }], bytes: encoder.encode(FIRST) },
    keepalive: { ms: 0, bytes: encoder.encode(KEEPALIVE), clock },
    converter: passthrough(),
    onEnd: () => {},
  });
  const sink = recordingSink();
  const piped = stream.pipe(sink);
  await sink.until(FIRST);
  assert.equal(clock.size, 0);
  assert.equal(sink.written, FIRST);
  stream.cancel();
  await piped;
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

Deno.test("stream: the closing events of a translation go out with the end of the body, in one write", async () => {
  const closing: SseEvent = { event: "message_stop", data: '{"type":"message_stop"}' };
  const translating = { ...passthrough(), end: () => [closing] };
  const ended: RelayOutcome[] = [];
  const relay = (converter: StreamConverter, lastKnown = false) => {
    const sink = recordingSink();
    const piped = relayStream({
      exchange: silentExchange(),
      events: eventsOf(["second"], lastKnown),
      first: { events: [{ data: "first" }], bytes: encoder.encode(FIRST) },
      keepalive: { ms: 0, bytes: encoder.encode(KEEPALIVE), clock: new AlarmClock() },
      converter,
      onEnd: (outcome) => void ended.push(outcome),
    }).pipe(sink);
    return { sink, piped };
  };

  const translated = relay(translating);
  await translated.piped;
  assert.deepEqual(translated.sink.writes, [
    { text: FIRST, last: false },
    { text: "data: second\n\n", last: false },
    { text: 'event: message_stop\ndata: {"type":"message_stop"}\n\n', last: true },
  ]);

  // Nothing to close with: the server ends the body after the stream, as before.
  const passed = relay(passthrough());
  await passed.piped;
  assert.deepEqual(passed.sink.writes.map((write) => write.last), [false, false]);
  assert.deepEqual(ended.map((outcome) => outcome.status), ["ok", "ok"]);

  // The body ended with the last batch: it goes out with the closing events and the end.
  const known = relay(translating, true);
  await known.piped;
  assert.deepEqual(known.sink.writes, [
    { text: FIRST, last: false },
    { text: 'data: second\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n', last: true },
  ]);
  const knownPassed = relay(passthrough(), true);
  await knownPassed.piped;
  assert.deepEqual(knownPassed.sink.writes, [
    { text: FIRST, last: false },
    { text: "data: second\n\n", last: true },
  ]);
  assert.deepEqual(ended.map((outcome) => outcome.status), ["ok", "ok", "ok", "ok"]);
});
