/**
 * Budgets over real HTTP against a fake upstream, on every store: budgets_test.ts runs the
 * cases on a SQLite file, budgets_postgres_test.ts on PostgreSQL. A request of model
 * "dear" holds exactly what it costs ($0.01: one output token at $10,000 a million), so a
 * budget of N cents is N requests wide.
 */
import assert from "node:assert/strict";
import { type Db } from "../src/db/database.ts";
import type { AlarmClock } from "../src/clock/alarm_clock.ts";
import { waitUntil } from "./accounting_support.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith, startGateway, type TestGateway } from "./harness.ts";

/** One case; `database` gives a fresh database's URL (undefined: a SQLite file). */
export interface BudgetCase {
  name: string;
  run(database: () => Promise<string | undefined>): Promise<void>;
}

/** One output token, $0.01; input free. */
export const DEAR_MODEL = `
[models.dear]
max_output_tokens = 1
input_price = 0
output_price = 10000
`;

/** A chat request of model "dear". */
export function dearBody(text: string) {
  return { model: "dear", max_tokens: 1, messages: [{ role: "user", content: text }] };
}

/** A gateway with model "dear" answering "ok" (one token), and `extra` config. */
export async function startDearGateway(
  extra: string,
  options: {
    databaseUrl?: string;
    now?: () => number;
    clock?: AlarmClock;
    alertsClock?: AlarmClock;
  } = {},
) {
  const fake = await startFakeUpstream({ name: "up" });
  fake.setBehaviour({ reply: { text: "ok" } });
  const gateway = await startGateway(
    configWith(
      channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["dear"], keys: ["k"] }),
      `${DEAR_MODEL}\n${extra}`,
    ),
    options,
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

/** The alert events of the database, oldest first. */
export async function alertEvents(db: Db) {
  const rows = await db.kysely.selectFrom("alert_events").selectAll().orderBy("created_at")
    .orderBy("threshold_ppm").execute();
  return rows.map((row) => ({
    type: row.type,
    scope: row.scope,
    threshold: row.threshold_ppm === null ? null : Number(row.threshold_ppm) / 1e6,
    facts: JSON.parse(row.facts) as Record<string, unknown>,
  }));
}

/** A key's budget counters. */
export async function keyBudget(db: Db, id: string) {
  const row = await db.kysely.selectFrom("api_keys").selectAll().where("id", "=", id)
    .executeTakeFirstOrThrow();
  return { spent: Number(row.budget_spent_micros), held: Number(row.budget_held_micros) };
}

/** Sends `count` requests at once; resolves with their statuses and refusal bodies. */
export async function burst(gateway: TestGateway, secret: string, count: number) {
  const responses = await Promise.all(
    Array.from(
      { length: count },
      (_, i) => gateway.post("/v1/chat/completions", secret, dearBody(`request ${i}`)),
    ),
  );
  return await Promise.all(responses.map(async (response) => ({
    status: response.status,
    body: await response.json(),
  })));
}

/** Every budget case, in order. */
export const BUDGET_CASES: readonly BudgetCase[] = [
  {
    name: "budgets: 30 concurrent requests against a key budget 5 requests wide: exactly 5 held",
    async run(database) {
      const { fake, gateway, close } = await startDearGateway(
        `[groups.default.key_budget]\nusd = 0.05\nperiod = "month"\n`,
        { databaseUrl: await database() },
      );
      try {
        const { id, secret } = await gateway.createKey({ unlimited: true });
        const gate = Promise.withResolvers<void>();
        fake.setBehaviour({ gate: gate.promise, reply: { text: "ok" } });
        const refusals: unknown[] = [];
        const pending = Array.from(
          { length: 30 },
          (_, i) =>
            gateway.post("/v1/chat/completions", secret, dearBody(`request ${i}`)).then(
              async (response) => {
                if (response.status === 403) refusals.push(await response.json());
                return response;
              },
            ),
        );
        // The gate keeps every granted hold in place until all 30 are decided.
        await waitUntil(() => refusals.length + fake.requests.length === 30, "all 30 decided");
        assert.equal(fake.requests.length, 5);
        assert.equal(refusals.length, 25);
        const error = (refusals[0] as { error: { code: string; type: string; message: string } })
          .error;
        assert.equal(error.code, "budget_exceeded");
        assert.equal(error.type, "permission_error");
        assert.match(
          error.message,
          /key budget of key key_\w+ \(\$0\.05 a month\) has \$0\.00 left/,
        );
        assert.match(error.message, /it renews at \d{4}-\d{2}-01T00:00:00\.000Z/);
        await gateway.server.settled();
        assert.deepEqual(await keyBudget(gateway.db, id), { spent: 0, held: 50_000 });
        gate.resolve();
        for (const response of await Promise.all(pending)) {
          if (!response.bodyUsed) await response.text();
        }
        const rows = await gateway.ledger();
        assert.equal(rows.length, 5);
        const charged = rows.reduce((sum, row) => sum + row.cost_micros, 0);
        assert.equal(charged, 50_000);
        assert.deepEqual(await keyBudget(gateway.db, id), { spent: 50_000, held: 0 });
        // Spent to the last cent: the next is refused, on the settled counter alone.
        const [next] = await burst(gateway, secret, 1);
        assert.equal(next!.status, 403);
      } finally {
        await close();
      }
    },
  },
  {
    name: "budgets: an account budget that never renews says so; none and default",
    async run(database) {
      const { gateway, close } = await startDearGateway(
        `[budgets]\naccount = { usd = 0.02, period = "total" }\n`,
        { databaseUrl: await database() },
      );
      try {
        const { secret, account } = await gateway.createKey({ balanceUsd: "1" });
        const statuses = await burst(gateway, secret, 3);
        assert.deepEqual(statuses.map((s) => s.status).sort(), [200, 200, 403]);
        const refused = statuses.find((s) => s.status === 403)!.body.error;
        assert.equal(refused.code, "budget_exceeded");
        assert.match(refused.message, /account budget of account "account_1" \(\$0\.02 in all\)/);
        assert.match(refused.message, /it never renews/);
        // No budget at all: the balance is the only limit.
        await gateway.db.kysely.updateTable("accounts").set({ budget_mode: "none" })
          .where("name", "=", account).execute();
        await waitUntil(async () => (await burst(gateway, secret, 1))[0]!.status === 200, "none");
      } finally {
        await close();
      }
    },
  },
  {
    name: "budgets: each threshold fires once under concurrency, and again after a raised budget",
    async run(database) {
      const { fake, gateway, close } = await startDearGateway("", {
        databaseUrl: await database(),
      });
      try {
        const { id, secret } = await gateway.createKey({ unlimited: true });
        await gateway.db.kysely.updateTable("api_keys")
          .set({ budget_mode: "own", budget_micros: 100_000, budget_period: "month" })
          .where("id", "=", id).execute();
        // 8 at once, all fitting, settled together: 0.5 and 0.8 crossed by one batch.
        const gate = Promise.withResolvers<void>();
        fake.setBehaviour({ gate: gate.promise, reply: { text: "ok" } });
        const pending = burst(gateway, secret, 8);
        await waitUntil(() => fake.requests.length === 8, "8 held");
        gate.resolve();
        assert.ok((await pending).every((s) => s.status === 200));
        fake.setBehaviour({ reply: { text: "ok" } });
        await gateway.server.settled();
        const crossed = async () =>
          (await alertEvents(gateway.db)).map((event) => [event.type, event.threshold]);
        assert.deepEqual(await crossed(), [
          ["budget.threshold_crossed", 0.5],
          ["budget.threshold_crossed", 0.8],
        ]);
        // Two more: 0.95 and the budget itself, once each.
        for (
          const status of [...await burst(gateway, secret, 1), ...await burst(gateway, secret, 1)]
        ) {
          assert.equal(status.status, 200);
        }
        await gateway.server.settled();
        const events = await alertEvents(gateway.db);
        assert.deepEqual(events.map((event) => event.threshold), [0.5, 0.8, 0.95, 1]);
        assert.equal(events[3]!.type, "budget.exhausted");
        assert.deepEqual(
          { ...events[3]!.facts, period_start: 0, renews_at: 0 },
          {
            kind: "key",
            id,
            budget_micros: 100_000,
            spent_micros: 100_000,
            held_micros: 0,
            period: "month",
            period_start: 0,
            renews_at: 0,
          },
        );
        // Refused now, and no second exhausted event for it.
        assert.equal((await burst(gateway, secret, 1))[0]!.status, 403);
        // Raised to $0.20: 0.5 is still reached (stays announced), 0.8 is re-armed.
        await gateway.db.kysely.updateTable("api_keys").set({ budget_micros: 200_000 })
          .where("id", "=", id).execute();
        await waitUntil(async () => (await burst(gateway, secret, 1))[0]!.status === 200, "raised");
        for (let i = 0; i < 6; i++) assert.equal((await burst(gateway, secret, 1))[0]!.status, 200);
        await gateway.server.settled();
        assert.deepEqual((await alertEvents(gateway.db)).map((event) => event.threshold), [
          0.5,
          0.8,
          0.95,
          1,
          0.8,
        ]);
      } finally {
        await close();
      }
    },
  },
];
