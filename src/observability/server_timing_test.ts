import assert from "node:assert/strict";
import { newRecord } from "./record.ts";
import { serverTiming } from "./server_timing.ts";

/** A record that arrived at `startedAt` and waited `upstreamMs` on upstreams. */
function recordOf(startedAt: number, upstreamMs: number) {
  const record = newRecord({ requestId: "req_1", time: 0, method: "POST", path: "/v1/x" });
  return { ...record, startedAt, upstreamMs };
}

Deno.test("server-timing: the upstream's wait, and the rest of the time since the request came", () => {
  assert.equal(
    serverTiming(recordOf(1_000, 30.25), 1_100),
    'gateway;dur=69.8;desc="tollgate", upstream;dur=30.3;desc="upstream"',
  );
  // Nothing spent upstream (an answer of the gateway's own).
  assert.equal(
    serverTiming(recordOf(1_000, 0), 1_012),
    'gateway;dur=12.0;desc="tollgate", upstream;dur=0.0;desc="upstream"',
  );
});

Deno.test("server-timing: the gateway's share is never negative", () => {
  // Upstream waits are summed from their own readings: they may round past the whole.
  assert.equal(
    serverTiming(recordOf(1_000, 50.5), 1_050),
    'gateway;dur=0.0;desc="tollgate", upstream;dur=50.5;desc="upstream"',
  );
});
