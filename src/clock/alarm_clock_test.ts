import assert from "node:assert/strict";
import { AlarmClock } from "./alarm_clock.ts";

/** Alarms that note their name when they ring; `rung` resolves after `count` rings. */
function ringer(count: number) {
  const rung: string[] = [];
  const done = Promise.withResolvers<void>();
  const target = (name: string) => ({
    ring() {
      rung.push(name);
      if (rung.length === count) done.resolve();
    },
  });
  return { rung, target, done: done.promise };
}

Deno.test("alarm clock: alarms ring once each, in the order of their times, not before them", async () => {
  const clock = new AlarmClock();
  const { rung, target, done } = ringer(4);
  const start = clock.now();
  const times = { c: 30, a: 5, d: 30, b: 15 };
  for (const [name, ms] of Object.entries(times)) clock.alarm(target(name)).set(start + ms);
  await done;
  assert.deepEqual(rung.slice(0, 2), ["a", "b"]);
  assert.deepEqual(rung.slice(2).sort(), ["c", "d"]);
  assert.ok(clock.now() - start >= 30);
  assert.equal(clock.size, 0);
});

Deno.test("alarm clock: a cancelled alarm does not ring, a moved one rings at its new time", async () => {
  const clock = new AlarmClock();
  const { rung, target, done } = ringer(2);
  const start = clock.now();
  const cancelled = clock.alarm(target("cancelled"));
  const later = clock.alarm(target("later"));
  const earlier = clock.alarm(target("earlier"));
  cancelled.set(start + 5);
  later.set(start + 5);
  earlier.set(start + 60_000);
  cancelled.cancel();
  later.set(start + 25);
  earlier.set(start + 10);
  await done;
  assert.deepEqual(rung, ["earlier", "later"]);
});

Deno.test("alarm clock: an alarm set again as it rings rings again; none set holds no timer", async () => {
  const clock = new AlarmClock();
  let rings = 0;
  const done = Promise.withResolvers<void>();
  const alarm = clock.alarm({
    ring(now) {
      if (++rings < 3) alarm.set(now + 2);
      else done.resolve();
    },
  });
  alarm.set(clock.now() + 2);
  await done.promise;
  assert.equal(rings, 3);
  // The test's op sanitizer fails it if a timer was left behind.
  assert.equal(clock.size, 0);
});

Deno.test("alarm clock: after its last alarm is cancelled it holds nothing open, and later and earlier alarms still ring", async () => {
  const clock = new AlarmClock();
  const { rung, target, done } = ringer(2);
  const start = clock.now();
  const first = clock.alarm(target("cancelled"));
  first.set(start + 20);
  first.cancel();
  // Later than the timer kept for the cancelled one, then earlier than it.
  clock.alarm(target("later")).set(start + 40);
  clock.alarm(target("earlier")).set(start + 5);
  await done;
  assert.deepEqual(rung, ["earlier", "later"]);
  assert.ok(clock.now() - start >= 40);
  assert.equal(clock.size, 0);
});

Deno.test("alarm clock: the timer kept after the last alarm is cancelled holds no process open", async () => {
  // A process whose only alarm, an hour away, was cancelled: it ends at once, or in an hour.
  const clockUrl = new URL("./alarm_clock.ts", import.meta.url).href;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const { AlarmClock } = await import(${JSON.stringify(clockUrl)});
       const clock = new AlarmClock();
       const alarm = clock.alarm({ ring() { console.log("rang"); } });
       alarm.set(clock.now() + 3_600_000);
       alarm.cancel();`,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let guard: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<"stuck">((resolve) =>
    guard = setTimeout(() => resolve("stuck"), 30_000)
  );
  const ended = await Promise.race([child.output(), stuck]);
  clearTimeout(guard);
  if (ended === "stuck") child.kill("SIGKILL");
  await child.status;
  assert.notEqual(ended, "stuck", "the process was still running after 30 s");
});

Deno.test("alarm clock: thousands of alarms keep heap order through sets, moves and cancels", () => {
  // Alarms far in the future of a clock whose time stands still: none rings meanwhile.
  const clock = new AlarmClock(() => 0);
  const alarms = Array.from({ length: 2_000 }, () => clock.alarm({ ring() {} }));
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const someTime = () => 1_000_000 + random() * 1000;
  for (const alarm of alarms) alarm.set(someTime());
  for (const alarm of alarms.slice(0, 500)) alarm.set(someTime());
  for (const alarm of alarms.slice(500, 1000)) alarm.cancel();
  const left = alarms.filter((alarm) => alarm.slot >= 0).sort((a, b) => a.at - b.at);
  assert.equal(clock.size, 1_500);
  // Cancelling in time order always takes the heap's first: the order is intact.
  for (const alarm of left) {
    assert.equal(alarm.slot, 0);
    alarm.cancel();
  }
  assert.equal(clock.size, 0);
});

Deno.test("alarm clock: an alarm set again for a time already past rings at the next turn, not in the same pass", async () => {
  const clock = new AlarmClock();
  let rings = 0;
  let ringsInFirstPass = 0;
  const done = Promise.withResolvers<void>();
  const alarm = clock.alarm({
    ring(now) {
      // A microtask runs only once the clock's pass is over and the event loop turns.
      if (++rings === 1) queueMicrotask(() => ringsInFirstPass = rings);
      // Set again for a past time (bounded: a clock that loops on it ends the test, not the run).
      if (rings < 100) alarm.set(now - 1);
      else done.resolve();
    },
  });
  alarm.set(clock.now());
  await done.promise;
  // Rung again in the same pass, the clock would never let I/O run: the gateway would hang.
  assert.equal(ringsInFirstPass, 1);
  assert.equal(rings, 100);
});
