import assert from "node:assert/strict";
import { ManualClock } from "./manual_clock.ts";

Deno.test("manual clock: alarms ring when time is advanced past them, in order, and not before", () => {
  const clock = new ManualClock();
  const rung: string[] = [];
  const start = clock.now();
  clock.alarm({ ring: () => rung.push("late") }).set(start + 300);
  clock.alarm({ ring: () => rung.push("early") }).set(start + 100);
  clock.advance(99);
  assert.deepEqual(rung, []);
  clock.advance(250);
  assert.deepEqual(rung, ["early", "late"]);
  assert.equal(clock.now(), start + 349);
});

Deno.test("manual clock: sleep resolves once its time has been advanced over", async () => {
  const clock = new ManualClock();
  let woke = false;
  const sleeping = clock.sleep(2_000).then(() => woke = true);
  clock.advance(1_999);
  await Promise.resolve();
  assert.equal(woke, false);
  clock.advance(1);
  await sleeping;
  assert.equal(woke, true);
});
