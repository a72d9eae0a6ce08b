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

Deno.test("stream: silent streams get keep-alives from one clock, which holds nothing once they end", async () => {
  const clock = new AlarmClock();
  const ended: RelayOutcome[] = [];
  const bodies = Array.from({ length: 3 }, () =>
    relayStream({
      exchange: silentExchange(),
      events: silentEvents(),
      first: { events: [{ data: "first" }], bytes: encoder.encode(FIRST) },
      keepalive: { ms: 10, bytes: encoder.encode(": keep-alive\n\n"), clock },
      converter: passthrough(),
      onEnd: (outcome) => ended.push(outcome),
    }));
  // Every stream's next keep-alive is an alarm of the shared clock, not a timer of its own.
  assert.equal(clock.size, 3);
  for (const body of bodies) {
    const reader = body.getReader();
    let text = "";
    while (!text.includes(": keep-alive\n\n")) text += decoder.decode((await reader.read()).value);
    assert.ok(text.startsWith(FIRST), text);
    await reader.cancel();
  }
  assert.equal(clock.size, 0, "an ended stream leaves no alarm (and the test no timer)");
  assert.deepEqual(ended.map((outcome) => outcome.status), ["aborted", "aborted", "aborted"]);
});

Deno.test("stream: no keep-alive alarm when keep-alives are off", async () => {
  const clock = new AlarmClock();
  const body = relayStream({
    exchange: silentExchange(),
    events: silentEvents(),
    first: { events: [{ data: "first" }], bytes: encoder.encode(FIRST) },
    keepalive: { ms: 0, bytes: encoder.encode(": keep-alive\n\n"), clock },
    converter: passthrough(),
    onEnd: () => {},
  });
  assert.equal(clock.size, 0);
  const reader = body.getReader();
  assert.equal(decoder.decode((await reader.read()).value), FIRST);
  await reader.cancel();
});
