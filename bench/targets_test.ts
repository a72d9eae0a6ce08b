import assert from "node:assert/strict";
import type { ChildServer } from "./processes.ts";
import { measuringOrder, type Target, targetRounds } from "./targets.ts";

const server = (name: string): ChildServer => ({
  name,
  pid: 0,
  ready: { url: "" },
  stop: () => Promise.resolve(),
});

const targetOf = (name: string, process: ChildServer): Target => ({
  name,
  url: "",
  model: "",
  server: process,
});

Deno.test("bench: no target's slice comes right after another of the same process", () => {
  const fake = server("fake upstream");
  const bare = server("bare proxy");
  const tollgate = server("tollgate");
  const targets = [
    targetOf("direct", fake),
    targetOf("bare proxy", bare),
    targetOf("tollgate unpriced", tollgate),
    targetOf("tollgate priced", tollgate),
  ];
  // Round after round: direct, unpriced, bare, priced, then direct again.
  assert.deepEqual(measuringOrder(targets), [0, 2, 1, 3]);
  // Targets of one process alone cannot be kept apart: they keep their order.
  const directions = [targetOf("a", tollgate), targetOf("b", tollgate), targetOf("c", tollgate)];
  assert.deepEqual(measuringOrder(directions), [0, 1, 2]);
});

Deno.test("bench: a targets' phase is cut into rounds of about a second, at least three", () => {
  assert.equal(targetRounds(5), 5);
  assert.equal(targetRounds(12), 12);
  assert.equal(targetRounds(1), 3);
});
