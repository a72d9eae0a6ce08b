import assert from "node:assert/strict";
import { AlarmClock } from "../clock/alarm_clock.ts";
import { callUpstream, UpstreamFailure } from "./call.ts";
import type { UpstreamResponse } from "./response.ts";

const TIMEOUTS = { connect: 1_000, first_byte: 60_000, idle: 60_000, total: 60_000 };

/** A 200 answer with an empty body. */
const answer = (): UpstreamResponse => ({
  status: 200,
  header: () => undefined,
  text: () => Promise.resolve(""),
  bytes: () => Promise.resolve(new Uint8Array()),
  body: null,
});

Deno.test("call: an exchange's deadlines are one alarm of the app's clock, gone once it finishes", async () => {
  const clock = new AlarmClock();
  const client = new AbortController();
  const { exchange } = await callUpstream(() => Promise.resolve(answer()), TIMEOUTS, {
    client: client.signal,
  }, clock);
  assert.equal(clock.size, 1);
  const idle = exchange.idle;
  idle.start();
  idle.end();
  assert.equal(clock.size, 1, "a read moves a deadline, not the alarm count");
  exchange.finish();
  assert.equal(clock.size, 0);
});

Deno.test("call: a deadline that passes aborts the exchange with its message", async () => {
  const clock = new AlarmClock();
  const client = new AbortController();
  const silent = new Promise<UpstreamResponse>(() => {});
  const failure = await callUpstream(() => silent, { ...TIMEOUTS, first_byte: 10 }, {
    client: client.signal,
  }, clock).catch((error) => error);
  assert.ok(failure instanceof UpstreamFailure);
  assert.equal(failure.kind, "timeout");
  assert.equal(failure.message, "The upstream sent no response headers within 10 ms.");
  assert.equal(clock.size, 0);
});

Deno.test("call: a wait ends at once when the client leaves, whatever it waits on", async () => {
  const client = new AbortController();
  const { exchange } = await callUpstream(() => Promise.resolve(answer()), TIMEOUTS, {
    client: client.signal,
  }, new AlarmClock());
  const never = new Promise<string>(() => {});
  const waiting = exchange.within(never, 60_000, "stream event");
  client.abort();
  const failure = await waiting.catch((error) => error);
  assert.ok(failure instanceof UpstreamFailure);
  assert.equal(failure.kind, "client_gone");
  assert.equal(exchange.signal.reason, failure);
  exchange.finish();
});

Deno.test("call: a client gone before the call sends nothing upstream and fails as client_gone", async () => {
  const client = new AbortController();
  client.abort();
  let sent = 0;
  const failure = await callUpstream(
    (signal) => {
      sent++;
      // As the HTTP client does: a request on a stopped signal fails with its reason.
      return Promise.reject(signal.reason);
    },
    TIMEOUTS,
    { client: client.signal },
    new AlarmClock(),
  ).catch((error) => error);
  assert.ok(failure instanceof UpstreamFailure);
  assert.equal(failure.kind, "client_gone");
  assert.equal(sent, 0);
});

Deno.test("call: a wait begun once the exchange is over fails at once, and what it no longer awaits may fail unseen", async () => {
  const client = new AbortController();
  const { exchange } = await callUpstream(() => Promise.resolve(answer()), TIMEOUTS, {
    client: client.signal,
  }, new AlarmClock());
  client.abort();
  let fail!: (reason: unknown) => void;
  const body = new Promise<string>((_, reject) => fail = reject);
  const failure = await exchange.within(body, 60_000, "error body").catch((error) => error);
  assert.equal(failure.kind, "client_gone");
  // The body read fails later, as an aborted connection's does: no unhandled rejection.
  fail(new Error("connection aborted"));
  await new Promise((resolve) => setTimeout(resolve, 0));
  exchange.finish();
});
