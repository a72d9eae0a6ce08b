import assert from "node:assert/strict";
import { FIRST_RETRY_MS, GIVE_UP_AFTER_MS, nextAttemptAt } from "./backoff.ts";

Deno.test("backoff: within 30 s, then doubling to an hour, for 24 hours, then failed", () => {
  const waits: number[] = [];
  let now = 0;
  for (let attempts = 1;; attempts++) {
    const next = nextAttemptAt(0, attempts, now);
    if (next === null) break;
    waits.push(next - now);
    now = next;
  }
  assert.deepEqual(waits.slice(0, 9), [
    25_000,
    50_000,
    100_000,
    200_000,
    400_000,
    800_000,
    1_600_000,
    3_200_000,
    3_600_000,
  ]);
  assert.equal(waits[0], FIRST_RETRY_MS);
  // The last attempt is made at the 24th hour; its failure is final.
  assert.equal(now, GIVE_UP_AFTER_MS);
  assert.equal(nextAttemptAt(0, 99, GIVE_UP_AFTER_MS), null);
});
