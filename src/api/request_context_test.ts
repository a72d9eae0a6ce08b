import assert from "node:assert/strict";
import { newRequestId, requestIdFrom } from "./request_context.ts";

Deno.test("request ids: made ids sort in time order and stay unique within a millisecond", () => {
  const times = [0, 1, 999, 0xffffff, 0x1000000, 1_764_000_000_000, 1_764_000_000_001, 2 ** 47];
  const ids = times.map((time) => newRequestId(time));
  for (const id of ids) assert.match(id, /^req_[0-9a-f]{32}$/);
  // The first 12 hex digits are the time's.
  assert.deepEqual(
    ids.map((id) => id.slice(4, 16)),
    times.map((t) => t.toString(16).padStart(12, "0")),
  );
  assert.deepEqual([...ids].sort(), ids);
  const sameMillisecond = new Set(Array.from({ length: 1_000 }, () => newRequestId(5)));
  assert.equal(sameMillisecond.size, 1_000);
});

Deno.test("request ids: a well-formed incoming x-request-id is kept, a malformed one replaced", () => {
  assert.equal(requestIdFrom("trace-42:abc", 7), "trace-42:abc");
  assert.match(requestIdFrom("bad id with spaces", 7), /^req_000000000007[0-9a-f]{20}$/);
  assert.match(requestIdFrom(undefined, 7), /^req_000000000007[0-9a-f]{20}$/);
});
