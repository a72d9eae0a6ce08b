import assert from "node:assert/strict";
import type { SseBatch, SseEvent } from "../protocols/sse.ts";
import type { StreamConverter } from "../translate/translation.ts";
import { AlarmClock } from "../upstream/alarm_clock.ts";
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

/** A client that records what a stream writes, and tells when a write has `text` in it. */
function recordingSink() {
  let written = "";
  const waiting: { text: string; resolve: () => void }[] = [];
  return {
    get written() {
      return written;
    },
    write(bytes: Uint8Array): Promise<void> {
      written += decoder.decode(bytes);
      for (const wait of waiting) if (written.includes(wait.text)) wait.resolve();
      return Promise.resolve();
    },
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
