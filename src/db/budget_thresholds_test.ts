import assert from "node:assert/strict";
import {
  balanceFloors,
  type BudgetCounter,
  type BudgetLimit,
  budgetRoom,
  rearmFloors,
  refuseBudget,
  settleBudget,
  thresholdLevels,
} from "./budget_thresholds.ts";

const levels = thresholdLevels([0.5, 0.8, 0.95]);
const limit = (micros: number, start = 100): BudgetLimit => ({
  micros,
  period: "month",
  start,
  end: start + 1_000,
});
const fresh = (): BudgetCounter => ({ start: 0, spent: 0, held: 0, alertPpm: 0, alertLimit: 0 });

Deno.test("thresholds: levels are ppm, ascending, the budget itself always last", () => {
  assert.deepEqual(thresholdLevels([0.95, 0.5, 1]), [500_000, 950_000, 1_000_000]);
  assert.deepEqual(levels, [500_000, 800_000, 950_000, 1_000_000]);
});

Deno.test("thresholds: each fires once a period, several at once when a settlement jumps", () => {
  const counter = fresh();
  assert.deepEqual(settleBudget(counter, limit(100), 0, 49, levels), []);
  assert.deepEqual(settleBudget(counter, limit(100), 0, 1, levels), [500_000]);
  assert.deepEqual(settleBudget(counter, limit(100), 0, 10, levels), []);
  assert.deepEqual(settleBudget(counter, limit(100), 0, 40, levels), [800_000, 950_000, 1_000_000]);
  assert.deepEqual(settleBudget(counter, limit(100), 0, 40, levels), []);
  // A new period starts the counter afresh, and every threshold is armed again.
  assert.deepEqual(settleBudget(counter, limit(100, 2_000), 0, 60, levels), [500_000]);
  assert.equal(counter.spent, 60);
});

Deno.test("thresholds: a raised budget re-arms those the spend is back under; a lowered one none", () => {
  const counter = fresh();
  settleBudget(counter, limit(100), 0, 96, levels);
  assert.equal(counter.alertPpm, 950_000);
  // Raised to 200: 0.48 spent, every threshold armed again.
  assert.deepEqual(settleBudget(counter, limit(200), 0, 4, levels), [500_000]);
  // Lowered to 150 (0.67): nothing announced twice, 0.8 still armed.
  assert.deepEqual(settleBudget(counter, limit(150), 0, 20, levels), [800_000]);
});

Deno.test("thresholds: a refusal announces the exhausted budget once; lower ones still fire", () => {
  const counter = fresh();
  assert.equal(refuseBudget(counter, limit(100), levels), true);
  assert.equal(refuseBudget(counter, limit(100), levels), false);
  assert.deepEqual(settleBudget(counter, limit(100), 0, 100, levels), [500_000, 800_000, 950_000]);
  assert.equal(refuseBudget(counter, limit(100), levels), false);
});

Deno.test("thresholds: room counts spend of the period and what is held", () => {
  const counter = { ...fresh(), start: 100, spent: 30, held: 20 };
  assert.equal(budgetRoom(counter, limit(100)), 50);
  // A counter of an older period has spent nothing in this one.
  assert.equal(budgetRoom(counter, limit(100, 500)), 80);
  settleBudget(counter, limit(100), 20, 15, levels);
  assert.deepEqual([counter.spent, counter.held], [45, 0]);
});

Deno.test("thresholds: balance floors fire once each going down, re-armed by a top-up above them", () => {
  const floors = [10_000_000, 1_000_000];
  let state = balanceFloors(20_000_000, null, floors);
  assert.deepEqual(state, { fired: [], announced: null });
  state = balanceFloors(5_000_000, state.announced, floors);
  assert.deepEqual(state, { fired: [10_000_000], announced: 10_000_000 });
  state = balanceFloors(500_000, state.announced, floors);
  assert.deepEqual(state, { fired: [1_000_000], announced: 1_000_000 });
  // Topped up to $5: the $1 floor is armed again, $10 not.
  assert.equal(rearmFloors(5_000_000, 1_000_000, floors), 10_000_000);
  assert.equal(rearmFloors(50_000_000, 1_000_000, floors), null);
});
