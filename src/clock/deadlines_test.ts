/**
 * An exchange's deadlines on a clock whose time moves only when the test says
 * (tests/fakes/manual_clock.ts): what expires, and when, is the deadlines' own doing,
 * whatever the machine's speed.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../tests/fakes/manual_clock.ts";
import { Deadlines } from "./deadlines.ts";

const said = (ms: number, subject: string) => `${subject || "total"} ${ms}`;

/** Deadlines on a manual clock of their own, with the messages of what expired. */
function watched(totalMs: number, clock = new ManualClock()) {
  const expired: string[] = [];
  const deadlines = new Deadlines({
    clock,
    totalMs,
    describeTotal: said,
    expired: (message) => expired.push(message),
  });
  return { deadlines, clock, expired };
}

Deno.test("deadlines: a wait that outlives its time expires with its own message", () => {
  const { deadlines, clock, expired } = watched(60_000);
  deadlines.wait(5, "headers", said);
  clock.advance(4);
  assert.deepEqual(expired, [], "not before its time");
  clock.advance(1);
  assert.deepEqual(expired, ["headers 5"]);
  clock.advance(60_000);
  assert.deepEqual(expired, ["headers 5"], "once: nothing expires after the first");
  deadlines.stop();
});

Deno.test("deadlines: an ended wait does not expire; the total deadline still does", () => {
  const { deadlines, clock, expired } = watched(30);
  const first = deadlines.wait(5, "headers", said);
  first.end();
  // The alarm was set for the ended wait: it rings, finds nothing due, and is set again.
  deadlines.wait(60_000, "body", said);
  clock.advance(29);
  assert.deepEqual(expired, []);
  clock.advance(1);
  assert.deepEqual(expired, ["total 30"]);
  deadlines.stop();
});

Deno.test("deadlines: nothing expires after stop, and the clock holds no timer", () => {
  const { deadlines, clock, expired } = watched(1);
  deadlines.wait(1, "headers", said);
  deadlines.stop();
  assert.equal(clock.size, 0);
  clock.advance(20);
  assert.deepEqual(expired, []);
});

Deno.test("deadlines: a repeated wait expires when one of its waits outlives its time", () => {
  const { deadlines, clock, expired } = watched(60_000);
  const idle = deadlines.repeated(5, "idle", said);
  idle.start();
  clock.advance(4);
  idle.end();
  // Ended, the wait holds nothing: time passing does not expire it.
  clock.advance(10);
  assert.deepEqual(expired, []);
  idle.start();
  clock.advance(4);
  assert.deepEqual(expired, []);
  clock.advance(1);
  assert.deepEqual(expired, ["idle 5"]);
  deadlines.stop();
});

Deno.test("deadlines: a repeated wait that ended does not expire; the total deadline still does", () => {
  const { deadlines, clock, expired } = watched(30);
  const idle = deadlines.repeated(5, "idle", said);
  for (let read = 0; read < 3; read++) {
    const started = idle.start();
    clock.advance(4);
    assert.equal(idle.end() - started, 4, "a wait's start and end are the clock's times");
  }
  clock.advance(17);
  assert.deepEqual(expired, []);
  clock.advance(1);
  assert.deepEqual(expired, ["total 30"]);
  deadlines.stop();
});

Deno.test("deadlines: the exchanges of one clock each expire on their own deadline", () => {
  const clock = new ManualClock();
  const expired: string[] = [];
  const exchange = (totalMs: number) =>
    new Deadlines({ clock, totalMs, describeTotal: said, expired: (m) => expired.push(m) });
  const waiting = exchange(60_000);
  exchange(40);
  exchange(60_000).wait(10, "headers", said);
  exchange(10).stop();
  clock.advance(10);
  assert.deepEqual(expired, ["headers 10"], "the stopped one's total passed unseen");
  clock.advance(30);
  assert.deepEqual(expired, ["headers 10", "total 40"]);
  assert.equal(clock.size, 1, "the exchange still waiting keeps its alarm");
  waiting.stop();
  assert.equal(clock.size, 0);
});
