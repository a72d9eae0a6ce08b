/** Shared set-up of the accounting tests: a priced model behind a fake chat upstream. */
import assert from "node:assert/strict";
import type { Db } from "../src/db/database.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith, startGateway } from "./harness.ts";

/** One output token costs 1 micro-USD; input is free, so a hold is exactly max_tokens micros. */
export const PRICED_MODEL = `
[models.priced]
max_output_tokens = 1000
input_price = 0
output_price = 1
`;

/**
 * A gateway with model "priced" on a chat channel to a fake upstream, on a SQLite file or
 * on the database `databaseUrl` names.
 */
export async function startPricedGateway(
  protocol: "chat" | "messages" | "responses" = "chat",
  databaseUrl?: string,
) {
  const fake = await startFakeUpstream({ name: "up" });
  const gateway = await startGateway(
    configWith(
      channel({ name: "up", protocol, baseUrl: fake.url, models: ["priced"], keys: ["k1"] }),
      PRICED_MODEL,
    ),
    { databaseUrl },
  );
  return {
    fake,
    gateway,
    async close() {
      await gateway.close();
      await fake.close();
    },
  };
}

/** Waits until `condition` holds, checking between awaited turns; fails after `tries`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  tries = 1_000,
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** A chat request for the priced model. */
export function chatBody(text: string, extra: Record<string, unknown> = {}) {
  return {
    model: "priced",
    max_tokens: 1000,
    messages: [{ role: "user", content: text }],
    ...extra,
  };
}

/** How many holds the database has (requests in flight, or left by a crash). */
export async function countHolds(db: Db): Promise<number> {
  const row = await db.kysely.selectFrom("holds")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Asserts that the rollups equal the ledger summed by hour (or day), account, key and model
 * (by hour and account alone), and that each key's last use is its latest ledger row: what
 * settlement keeps in the same transaction as the rows. Returns how many ledger rows there are.
 */
export async function assertRollupsMatchLedger(db: Db): Promise<number> {
  let requests = 0;
  const tables = [
    ["usage_hourly", "hour", 3_600_000, ", key_id, model", "1, 2, 3, 4"],
    ["usage_hourly_accounts", "hour", 3_600_000, "", "1, 2"],
    ["usage_daily", "day", 86_400_000, ", key_id, model", "1, 2, 3, 4"],
  ] as const;
  for (const [table, bucket, ms, keyAndModel, order] of tables) {
    const { rows: expected } = await db.client.execute(`
      SELECT created_at - created_at % ${ms} AS bucket, account_id ${keyAndModel},
        count(*) AS requests,
        sum(CASE WHEN status IN ('failed', 'interrupted') THEN 1 ELSE 0 END) AS errors,
        sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
        sum(cached_tokens) AS cached_tokens, sum(cache_write_tokens) AS cache_write_tokens,
        sum(cost_micros) AS cost_micros
      FROM ledger GROUP BY ${order} ORDER BY ${order}`);
    const { rows: rollups } = await db.client.execute(`
      SELECT ${bucket} AS bucket, account_id ${keyAndModel}, requests, errors,
        input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros
      FROM ${table} ORDER BY ${order}`);
    // Numbers as numbers (PostgreSQL's counts and sums come as text or BIGINT).
    const plain = (rows: Record<string, unknown>[]) =>
      rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([name, value]) => [
            name,
            typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value,
          ]),
        )
      );
    assert.deepEqual(plain(rollups), plain(expected), table);
    requests = expected.reduce((sum, row) => sum + Number(row.requests), 0);
  }
  const keys = await db.kysely.selectFrom("api_keys")
    .leftJoin("ledger", "ledger.key_id", "api_keys.id")
    .select((eb) => [
      "api_keys.id",
      "api_keys.last_used_at",
      eb.fn.max("ledger.created_at").as("latest"),
    ])
    .groupBy(["api_keys.id", "api_keys.last_used_at"])
    .execute();
  for (const key of keys) {
    assert.equal(
      key.last_used_at === null ? null : Number(key.last_used_at),
      key.latest === null ? null : Number(key.latest),
      `last use of ${key.id}`,
    );
  }
  return requests;
}
