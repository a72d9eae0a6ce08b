import assert from "node:assert/strict";
import { DAY_MS, HOUR_MS } from "./rollup_rows.ts";
import { splitRange } from "./usage.ts";

Deno.test("splitRange: whole days, then whole hours, then the partial hours from the ledger", () => {
  const h = HOUR_MS;
  const d = DAY_MS;
  const open = { from: undefined, to: undefined };
  assert.deepEqual(splitRange(), { hours: open, days: open, ledger: [] });
  assert.deepEqual(splitRange(2 * h, 5 * h), { hours: { from: 2 * h, to: 5 * h }, ledger: [] });
  assert.deepEqual(splitRange(2 * h + 1, 5 * h - 1), {
    hours: { from: 3 * h, to: 4 * h },
    ledger: [{ from: 2 * h + 1, to: 3 * h }, { from: 4 * h, to: 5 * h - 1 }],
  });
  // Across days: the whole days inside the whole hours.
  assert.deepEqual(splitRange(d - h - 5, 3 * d + 2 * h + 5), {
    hours: { from: d - h, to: 3 * d + 2 * h },
    days: { from: d, to: 3 * d },
    ledger: [{ from: d - h - 5, to: d - h }, { from: 3 * d + 2 * h, to: 3 * d + 2 * h + 5 }],
  });
  assert.deepEqual(splitRange(d + 1, undefined), {
    hours: { from: d + h, to: undefined },
    days: { from: 2 * d, to: undefined },
    ledger: [{ from: d + 1, to: d + h }],
  });
  assert.deepEqual(splitRange(undefined, d + h), {
    hours: { from: undefined, to: d + h },
    days: { from: undefined, to: d },
    ledger: [],
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
