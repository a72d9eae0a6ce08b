import assert from "node:assert/strict";
import type { NewRefusal } from "../db/schema.ts";
import { newRecord } from "./record.ts";
import { createRefusalLog } from "./refusal_log.ts";

const MINUTE = Date.parse("2030-01-01T10:00:00Z");

/** A refused request of `address` at `time`, with a key when `keyId`. */
function refused(id: string, time: number, address: string, keyId?: string) {
  const record = newRecord({ requestId: id, time, method: "POST", path: "/v1/chat/completions" });
  record.status = 401;
  record.outcome = "refused";
  record.refusal = { code: "authentication_error", reason: "Invalid API key." };
  record.clientAddress = address;
  record.keyId = keyId;
  return record;
}

Deno.test("refusal log: pending until written, then written in one batch; a flood counted per address and minute", async () => {
  const batches: NewRefusal[][] = [];
  let now = MINUTE + 1_000;
  const log = createRefusalLog({
    write: (rows) => {
      batches.push([...rows]);
      return Promise.resolve();
    },
    now: () => now,
    flushMs: 60_000,
    perMinute: 3,
  });
  for (let i = 0; i < 5; i++) log.refused(refused(`req_a${i}`, now, "10.0.0.1"), 1);
  for (let i = 0; i < 5; i++) log.refused(refused(`req_k${i}`, now, "10.0.0.1", "key_1"), 1);
  log.refused(refused("req_b0", now, "10.0.0.2"), 1);
  const pending = log.pending();
  assert.equal(pending.length, 3 + 5 + 1 + 1, "three each, a key's all, and one flood record");
  const flood = pending.find((row) => row.code === "refusal_flood")!;
  assert.equal(flood.count, 2);
  assert.equal(flood.request_id, "req_a3");
  assert.equal(flood.client_address, "10.0.0.1");
  await log.flush();
  assert.equal(batches.length, 1);
  assert.equal(batches[0]!.length, 10);
  assert.deepEqual(log.pending(), []);
  // A new minute counts afresh.
  now = MINUTE + 61_000;
  log.refused(refused("req_c0", now, "10.0.0.1"), 1);
  assert.equal(log.pending().length, 1);
  await log.close();
  assert.equal(batches.length, 2);
});

Deno.test("refusal log: a failed write keeps its batch for the next one", async () => {
  let fail = true;
  const written: NewRefusal[] = [];
  const errors: unknown[] = [];
  const log = createRefusalLog({
    write: (rows) => {
      if (fail) return Promise.reject(new Error("database is locked"));
      written.push(...rows);
      return Promise.resolve();
    },
    onError: (error) => errors.push(error),
    flushMs: 60_000,
  });
  log.refused(refused("req_1", MINUTE, "10.0.0.1"), 1);
  await log.flush();
  assert.equal(errors.length, 1);
  assert.equal(log.pending().length, 1, "still pending");
  fail = false;
  await log.close();
  assert.deepEqual(written.map((row) => row.request_id), ["req_1"]);
});
