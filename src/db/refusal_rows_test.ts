import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "./database.ts";
import { countRefusals, findRefusals, insertRefusals, pruneRefusals } from "./refusal_rows.ts";
import type { NewRefusal } from "./schema.ts";

const DAY = 86_400_000;

function refusal(requestId: string, createdAt: number, count = 1): NewRefusal {
  return {
    request_id: requestId,
    created_at: createdAt,
    key_id: null,
    key_prefix: "sk-abcd…",
    account: null,
    entry_point: "chat",
    method: "POST",
    path: "/v1/chat/completions",
    model: null,
    http_status: 401,
    code: "authentication_error",
    reason: "Invalid API key.",
    client_address: "10.0.0.1",
    duration_ms: 1,
    count,
  };
}

Deno.test("refusal rows: written in a batch, read newest first, counted, and pruned once past their days", async () => {
  const dir = await Deno.makeTempDir();
  const db = await openDatabase(`file:${join(dir, "test.db")}`);
  try {
    assert.equal((await db.migrate()).error, undefined);
    const now = Date.parse("2030-03-01T00:00:00Z");
    // 40 rows: more than one multi-row INSERT holds.
    const rows = Array.from({ length: 40 }, (_, i) => refusal(`req_${i}`, now - i * DAY));
    rows.push(refusal("req_flood", now - 1, 500));
    await insertRefusals(db.client, rows);
    const newest = await findRefusals(db.kysely, { limit: 3 });
    assert.deepEqual(newest.map((row) => row.request_id), ["req_0", "req_flood", "req_1"]);
    assert.equal(await countRefusals(db.kysely, { since: now - 2 * DAY + 1 }), 502);
    // Kept 30 days: the rows of days 31 to 39 go, in batches of 4.
    const before = now - 30 * DAY - 1;
    assert.equal(await pruneRefusals(db.client, before, 4), 4);
    assert.equal(await pruneRefusals(db.client, before, 100), 5);
    assert.equal(await pruneRefusals(db.client, before, 100), 0);
    assert.equal((await findRefusals(db.kysely, { limit: 100 })).length, 32);
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
