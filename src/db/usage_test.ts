import assert from "node:assert/strict";
import { HOUR_MS } from "./rollup_rows.ts";
import { splitRange } from "./usage.ts";

Deno.test("splitRange: whole hours to the rollups, partial ones to the ledger", () => {
  const h = HOUR_MS;
  assert.deepEqual(splitRange(), { rollups: { from: undefined, to: undefined }, ledger: [] });
  assert.deepEqual(splitRange(2 * h, 5 * h), { rollups: { from: 2 * h, to: 5 * h }, ledger: [] });
  assert.deepEqual(splitRange(2 * h + 1, 5 * h - 1), {
    rollups: { from: 3 * h, to: 4 * h },
    ledger: [{ from: 2 * h + 1, to: 3 * h }, { from: 4 * h, to: 5 * h - 1 }],
  });
  assert.deepEqual(splitRange(2 * h + 1, undefined), {
    rollups: { from: 3 * h, to: undefined },
    ledger: [{ from: 2 * h + 1, to: 3 * h }],
  });
  // Inside one hour, or across one boundary with no whole hour between.
  assert.deepEqual(splitRange(2 * h + 1, 2 * h + 9), {
    ledger: [{ from: 2 * h + 1, to: 2 * h + 9 }],
  });
  assert.deepEqual(splitRange(2 * h + 1, 3 * h + 9), {
    ledger: [{ from: 2 * h + 1, to: 3 * h }, { from: 3 * h, to: 3 * h + 9 }],
  });
  assert.deepEqual(splitRange(5, 5), { ledger: [] });
  assert.deepEqual(splitRange(9, 5), { ledger: [] });
});
