import assert from "node:assert/strict";
import { MIGRATIONS } from "../../migrations/index.ts";
import { migrate } from "./migrate.ts";
import { openSqliteFile } from "./sqlite_file.ts";
import { createSqliteStore } from "./sqlite_store.ts";

Deno.test("migration 004 keeps the holds in flight, their held amounts and their triggers", async () => {
  const dir = await Deno.makeTempDir();
  const file = openSqliteFile(`${dir}/t.db`);
  const { client } = file;
  // The driver's rows have no prototype; spread them to compare with plain objects.
  const held = async () => ({
    ...(await client.execute("SELECT held_micros, held_tokens FROM accounts, api_keys")).rows[0],
  });
  const hold = (id: string) => ({
    sql: `INSERT INTO holds (id, instance_id, account_id, key_id, amount_micros, tokens, created_at,
            expires_at, request_id, model, entry_point, stream, input_tokens, input_cost_micros)
          VALUES (?, 'inst_a', 1, 'key_a', 700, 70, 1, 2, ?, 'm', 'chat', 1, 5, 3)`,
    args: [id, `req_${id}`],
  });
  try {
    assert.deepEqual((await migrate(client, MIGRATIONS.slice(0, 3))).error, undefined);
    await client.batch([
      "INSERT INTO accounts (id, name, balance_micros, created_at) VALUES (1, 'a', 5000, 0)",
      `INSERT INTO api_keys (id, hash, prefix, account_id, group_name, created_at)
         VALUES ('key_a', 'h', 'p', 1, 'default', 0)`,
      hold("hold_1"),
    ]);
    assert.deepEqual(await held(), { held_micros: 700, held_tokens: 70 });

    assert.deepEqual(await migrate(client, MIGRATIONS.slice(0, 4)), {
      applied: ["004_holds_by_id"],
    });
    assert.deepEqual(await held(), { held_micros: 700, held_tokens: 70 }, "nothing released");
    const { rows } = await client.execute("SELECT * FROM holds");
    assert.deepEqual(rows.map((row) => ({ ...row })), [{
      id: "hold_1",
      instance_id: "inst_a",
      account_id: 1,
      key_id: "key_a",
      amount_micros: 700,
      tokens: 70,
      created_at: 1,
      expires_at: 2,
      request_id: "req_hold_1",
      model: "m",
      entry_point: "chat",
      stream: 1,
      input_tokens: 5,
      input_cost_micros: 3,
    }]);
    const schema = await client.execute("SELECT sql FROM sqlite_master WHERE name = 'holds'");
    assert.match(String(schema.rows[0]?.sql), /WITHOUT ROWID/);

    await client.batch([hold("hold_2")]);
    assert.deepEqual(await held(), { held_micros: 1400, held_tokens: 140 }, "a new hold raises");
    await client.batch(["DELETE FROM holds"]);
    assert.deepEqual(await held(), { held_micros: 0, held_tokens: 0 }, "releases lower");
  } finally {
    await file.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("migration 005 keeps holds in flight, which the batch then settles and releases", async () => {
  const dir = await Deno.makeTempDir();
  const file = openSqliteFile(`${dir}/t.db`);
  const { client } = file;
  try {
    assert.deepEqual((await migrate(client, MIGRATIONS.slice(0, 4))).error, undefined);
    await client.batch([
      "INSERT INTO accounts (id, name, balance_micros, created_at) VALUES (1, 'a', 5000, 0)",
      `INSERT INTO api_keys (id, hash, prefix, account_id, group_name, created_at)
         VALUES ('key_a', 'h', 'p', 1, 'default', 0)`,
      `INSERT INTO holds (id, instance_id, account_id, key_id, amount_micros, tokens, created_at,
         expires_at, request_id, model, entry_point, stream, input_tokens, input_cost_micros)
       VALUES ('hold_1', 'inst_a', 1, 'key_a', 700, 70, 1, 2, 'req_1', 'm', 'chat', 1, 5, 3)`,
    ]);
    assert.deepEqual(await migrate(client, MIGRATIONS.slice(0, 5)), {
      applied: ["005_balances_by_batch"],
    });
    const figures = async () => ({
      ...(await client.execute(
        "SELECT balance_micros, held_micros, used_tokens, held_tokens FROM accounts, api_keys",
      )).rows[0],
    });
    assert.deepEqual(await figures(), {
      balance_micros: 5000,
      held_micros: 700,
      used_tokens: 0,
      held_tokens: 70,
    });
    assert.equal((await migrate(client)).error, undefined);
    const store = createSqliteStore(file);
    await store.settleHold({
      holdId: "hold_1",
      accountId: 1,
      keyId: "key_a",
      requestId: "req_1",
      createdAt: 3,
      model: "m",
      entryPoint: "chat",
      channel: "c",
      upstreamModel: "m",
      attempts: 1,
      stream: true,
      status: "ok",
      reason: null,
      inputTokens: 5,
      outputTokens: 10,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      estimated: false,
      costMicros: 400,
      durationMs: 2,
    });
    assert.deepEqual(await figures(), {
      balance_micros: 4600,
      held_micros: 0,
      used_tokens: 15,
      held_tokens: 0,
    });
    const { rows } = await client.execute("SELECT request_id, cost_micros FROM ledger");
    assert.deepEqual(rows.map((row) => ({ ...row })), [{ request_id: "req_1", cost_micros: 400 }]);
  } finally {
    await file.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("migration 006 rolls up the ledger by hour and by day and sets each key's last use", async () => {
  const dir = await Deno.makeTempDir();
  const file = openSqliteFile(`${dir}/t.db`);
  const { client } = file;
  try {
    assert.deepEqual((await migrate(client, MIGRATIONS.slice(0, 5))).error, undefined);
    const row = (key: string, at: number, status: string, cost: number) =>
      `INSERT INTO ledger (request_id, created_at, account_id, key_id, model, entry_point,
         status, input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros)
       VALUES ('r', ${at}, 1, '${key}', 'm', 'chat', '${status}', 10, 2, 3, 1, ${cost})`;
    const hour = 3_600_000;
    await client.batch([
      "INSERT INTO accounts (id, name, balance_micros, created_at) VALUES (1, 'a', 5000, 0)",
      `INSERT INTO api_keys (id, hash, prefix, account_id, group_name, created_at)
         VALUES ('key_a', 'h', 'p', 1, 'default', 0), ('key_b', 'h2', 'p', 1, 'default', 0)`,
      row("key_a", 5 * hour + 1, "ok", 100),
      row("key_a", 6 * hour - 1, "failed", 0),
      row("key_a", 6 * hour, "interrupted", 7),
    ]);
    assert.deepEqual(await migrate(client, MIGRATIONS.slice(0, 6)), {
      applied: ["006_usage_rollups"],
    });
    const rollups = await client.execute(
      "SELECT hour, key_id, requests, errors, input_tokens, output_tokens, cached_tokens, " +
        "cache_write_tokens, cost_micros FROM usage_hourly ORDER BY hour",
    );
    assert.deepEqual(rollups.rows.map((r) => ({ ...r })), [
      {
        hour: 5 * hour,
        key_id: "key_a",
        requests: 2,
        errors: 1,
        input_tokens: 20,
        output_tokens: 4,
        cached_tokens: 6,
        cache_write_tokens: 2,
        cost_micros: 100,
      },
      {
        hour: 6 * hour,
        key_id: "key_a",
        requests: 1,
        errors: 1,
        input_tokens: 10,
        output_tokens: 2,
        cached_tokens: 3,
        cache_write_tokens: 1,
        cost_micros: 7,
      },
    ]);
    const accountHours = await client.execute(
      "SELECT hour, account_id, requests, cost_micros FROM usage_hourly_accounts ORDER BY hour",
    );
    assert.deepEqual(accountHours.rows.map((r) => ({ ...r })), [
      { hour: 5 * hour, account_id: 1, requests: 2, cost_micros: 100 },
      { hour: 6 * hour, account_id: 1, requests: 1, cost_micros: 7 },
    ]);
    const days = await client.execute(
      "SELECT day, requests, errors, input_tokens, cost_micros FROM usage_daily",
    );
    assert.deepEqual(days.rows.map((r) => ({ ...r })), [
      { day: 0, requests: 3, errors: 2, input_tokens: 30, cost_micros: 107 },
    ]);
    const keys = await client.execute("SELECT id, admin, last_used_at FROM api_keys ORDER BY id");
    assert.deepEqual(keys.rows.map((r) => ({ ...r })), [
      { id: "key_a", admin: 0, last_used_at: 6 * hour },
      { id: "key_b", admin: 0, last_used_at: null },
    ]);
  } finally {
    await file.close();
    await Deno.remove(dir, { recursive: true });
  }
});
