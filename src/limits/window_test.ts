import assert from "node:assert/strict";
import { SlidingWindow } from "./window.ts";

const T0 = 1_700_000_000_000; // a whole second: buckets start on it

Deno.test("window: counts leave 60 s after the start of their second", () => {
  const window = new SlidingWindow();
  window.add(2, T0 + 300);
  window.add(3, T0 + 10_000);
  assert.equal(window.used(T0 + 10_000), 5);
  assert.equal(window.used(T0 + 59_999), 5);
  assert.equal(window.used(T0 + 60_000), 3);
  assert.equal(window.used(T0 + 69_999), 3);
  assert.equal(window.used(T0 + 70_000), 0);
});

Deno.test("window: the wait is until enough of the oldest counts have left", () => {
  const window = new SlidingWindow();
  window.add(1, T0); // leaves at T0 + 60 s
  window.add(1, T0 + 20_500); // leaves at T0 + 80 s
  assert.equal(window.waitMs(1, 3, T0 + 30_000), 0);
  assert.equal(window.waitMs(1, 2, T0 + 30_000), 30_000);
  assert.equal(window.waitMs(2, 2, T0 + 30_000), 50_000);
  // Honest: once the wait is over, the window admits what it refused.
  assert.equal(window.waitMs(1, 2, T0 + 59_999), 1);
  assert.equal(window.waitMs(1, 2, T0 + 60_000), 0);
});

Deno.test("window: an amount over the limit on its own never fits", () => {
  const window = new SlidingWindow();
  assert.equal(window.waitMs(11, 10, T0), Infinity);
  assert.equal(window.waitMs(10, 10, T0), 0);
});

Deno.test("window: reset is when the newest count leaves", () => {
  const window = new SlidingWindow();
  assert.equal(window.resetMs(T0), 0);
  window.add(1, T0 + 100);
  window.add(1, T0 + 5_200);
  assert.equal(window.resetMs(T0 + 5_200), 59_800);
  assert.equal(window.resetMs(T0 + 64_999), 1);
  assert.equal(window.resetMs(T0 + 65_000), 0);
});

Deno.test("window: a long silence empties it; a clock stepping back counts into the newest second", () => {
  const window = new SlidingWindow();
  window.add(5, T0);
  assert.equal(window.used(T0 + 3_600_000), 0);
  window.add(1, T0 + 3_600_000);
  window.add(1, T0 + 3_590_000);
  assert.equal(window.used(T0 + 3_600_000), 2);
  assert.equal(window.used(T0 + 3_660_000), 0);
});

Deno.test("window: a clock starting at zero (or before) works", () => {
  const window = new SlidingWindow();
  window.add(1, -500);
  window.add(1, 0);
  assert.equal(window.used(0), 2);
  assert.equal(window.waitMs(1, 2, 0), 59_000);
  assert.equal(window.used(59_000), 1);
});
