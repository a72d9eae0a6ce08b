import assert from "node:assert/strict";
import fc from "fast-check";
import { IsoTime } from "./iso_time.ts";

Deno.test("iso time: the same text as toISOString, within a second and across seconds", () => {
  const time = new IsoTime();
  const base = Date.UTC(2026, 10, 26, 23, 51, 3);
  for (const ms of [base, base + 7, base + 42, base + 999, base + 1000, base - 1, 0, 999.9]) {
    assert.equal(time.format(ms), new Date(Math.floor(ms)).toISOString());
  }
  // Times before 1970 and past year 9999 have signed years.
  for (const ms of [-1, -62_198_755_200_001, 253_402_300_800_123]) {
    assert.equal(time.format(ms), new Date(ms).toISOString());
  }
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: -8.64e15, max: 8.64e15 }), { maxLength: 20 }),
      (times) => {
        for (const ms of times) assert.equal(time.format(ms), new Date(ms).toISOString());
      },
    ),
  );
});
