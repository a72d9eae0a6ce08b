import assert from "node:assert/strict";
import { AlarmClock } from "./alarm_clock.ts";
import { Deadlines } from "./deadlines.ts";

const said = (ms: number, subject: string) => `${subject || "total"} ${ms}`;

/** Deadlines on a clock of their own whose expiry resolves a promise with its message. */
function watched(totalMs: number) {
  const expiry = Promise.withResolvers<string>();
  const expired: string[] = [];
  const clock = new AlarmClock();
  const deadlines = new Deadlines({
    clock,
    totalMs,
    describeTotal: said,
    expired: (message) => {
      expired.push(message);
      expiry.resolve(message);
    },
  });
  return { deadlines, clock, expired, expiry: expiry.promise };
}

Deno.test("deadlines: a wait that outlives its time expires with its own message", async () => {
  const { deadlines, expired, expiry } = watched(60_000);
  deadlines.wait(5, "headers", said);
  assert.equal(await expiry, "headers 5");
  deadlines.stop();
  assert.deepEqual(expired, ["headers 5"]);
});

Deno.test("deadlines: an ended wait does not expire; the total deadline still does", async () => {
  const { deadlines, expiry } = watched(30);
  const first = deadlines.wait(5, "headers", said);
  first.end();
  // The alarm was set for the ended wait: it rings, finds nothing due, and is set again.
  deadlines.wait(60_000, "body", said);
  assert.equal(await expiry, "total 30");
  deadlines.stop();
});

Deno.test("deadlines: nothing expires after stop, and the clock holds no timer", async () => {
  const { deadlines, clock, expired } = watched(1);
  deadlines.wait(1, "headers", said);
  deadlines.stop();
  assert.equal(clock.size, 0);
  // A later timer of our own: by the time it runs, a live 1 ms deadline would have fired.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(expired, []);
});

Deno.test("deadlines: a repeated wait expires when one of its waits outlives its time", async () => {
  const { deadlines, expiry } = watched(60_000);
  const idle = deadlines.repeated(5, "idle", said);
  idle.start();
  idle.end();
  idle.start();
  assert.equal(await expiry, "idle 5");
  deadlines.stop();
});

Deno.test("deadlines: a repeated wait that ended does not expire; the total deadline still does", async () => {
  const { deadlines, expiry } = watched(30);
  const idle = deadlines.repeated(5, "idle", said);
  for (let read = 0; read < 3; read++) {
    const started = idle.start();
    assert.ok(idle.end() >= started);
  }
  assert.equal(await expiry, "total 30");
  deadlines.stop();
});

Deno.test("deadlines: the exchanges of one clock each expire on their own deadline", async () => {
  const clock = new AlarmClock();
  const expired: string[] = [];
  const done = Promise.withResolvers<void>();
  const exchange = (totalMs: number) =>
    new Deadlines({
      clock,
      totalMs,
      describeTotal: said,
      expired: (message) => {
        expired.push(message);
        if (expired.length === 2) done.resolve();
      },
    });
  const waiting = exchange(60_000);
  exchange(40);
  exchange(60_000).wait(10, "headers", said);
  exchange(10).stop();
  await done.promise;
  assert.deepEqual(expired, ["headers 10", "total 40"]);
  assert.equal(clock.size, 1, "the exchange still waiting keeps its alarm");
  waiting.stop();
  assert.equal(clock.size, 0);
});
