/**
 * The accounting invariants of design.md, one case (or more) named after each, over real
 * HTTP against a fake upstream and a real ledger. The cases run against every store:
 * accounting_test.ts on a SQLite file, accounting_postgres_test.ts on PostgreSQL.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { readSse } from "../src/upstream/sse.ts";
import type { Db } from "../src/db/database.ts";
import { recoverHolds } from "../src/billing/recovery.ts";
import {
  assertRollupsMatchLedger,
  chatBody,
  startPricedGateway,
  waitUntil,
} from "./accounting_support.ts";
import { channel, configWith, startGateway } from "./harness.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";

/** One accounting case; `database` gives a fresh database's URL (undefined: a SQLite file). */
export interface AccountingCase {
  name: string;
  run(database: () => Promise<string | undefined>): Promise<void>;
}

/** The column types of `ledger.cost_micros` and `accounts.balance_micros`, as stored. */
async function storedMoneyTypes(db: Db): Promise<[string, string]> {
  const { rows } = await db.client.execute(
    db.kind === "sqlite"
      ? `SELECT typeof(cost_micros) AS cost,
          (SELECT typeof(balance_micros) FROM accounts LIMIT 1) AS balance
        FROM ledger`
      : `SELECT
          (SELECT data_type FROM information_schema.columns
            WHERE table_name = 'ledger' AND column_name = 'cost_micros') AS cost,
          (SELECT data_type FROM information_schema.columns
            WHERE table_name = 'accounts' AND column_name = 'balance_micros') AS balance`,
  );
  return [String(rows[0]!.cost), String(rows[0]!.balance)];
}

/** Every accounting case, in order. */
export const ACCOUNTING_CASES: readonly AccountingCase[] = [
  {
    name: "invariant: balance never goes below zero through concurrent requests",
    async run(database) {
      const { fake, gateway, close } = await startPricedGateway("chat", await database());
      try {
        // Each request holds 1000 micros (max_tokens 1000 at 1 micro a token): 5 fit in 5000.
        const { secret, account } = await gateway.createKey({ balanceUsd: "0.005" });
        const gate = Promise.withResolvers<void>();
        fake.setBehaviour({ gate: gate.promise });
        let refused = 0;
        const responses = Array.from(
          { length: 20 },
          (_, i) =>
            gateway.post("/v1/chat/completions", secret, chatBody(`request ${i}`)).then(
              async (r) => {
                if (r.status === 403) {
                  const body = await r.json();
                  assert.equal(body.error.code, "insufficient_user_quota");
                  assert.equal(body.error.type, "insufficient_user_quota");
                  refused++;
                }
                return r;
              },
            ),
        );
        // The gate keeps every hold taken, so exactly 5 reach the upstream and 15 are refused.
        await waitUntil(
          () => refused + fake.requests.length === 20,
          "all requests to be held or refused",
        );
        assert.equal(fake.requests.length, 5);
        assert.equal(refused, 15);
        assert.equal((await gateway.account(account)).held_micros, 5000);
        gate.resolve();
        const statuses = await Promise.all(responses.map(async (p) => {
          const response = await p;
          if (!response.bodyUsed) await response.body?.cancel();
          return response.status;
        }));
        assert.equal(statuses.filter((s) => s === 200).length, 5);

        const after = await gateway.account(account);
        const rows = await gateway.ledger();
        assert.equal(rows.length, 5);
        const charged = rows.reduce((sum, row) => sum + row.cost_micros, 0);
        assert.ok(charged > 0);
        assert.equal(after.balance_micros, 5000 - charged);
        assert.ok(after.balance_micros >= 0);
        assert.equal(after.held_micros, 0);
      } finally {
        await close();
      }
    },
  },

  {
    name:
      "accounting: requests one after another, each holding most of the balance, are all admitted",
    async run(database) {
      const { gateway, close } = await startPricedGateway("chat", await database());
      try {
        // Each request holds 1000 micros and costs a few: one hold fits in 1500, two do not.
        // The next hold must see what the previous settlement released, though the
        // settlement is written after its answer went out.
        const { secret, account } = await gateway.createKey({ balanceUsd: "0.0015" });
        for (let i = 0; i < 3; i++) {
          const response = await gateway.post("/v1/chat/completions", secret, chatBody(`hi ${i}`));
          assert.equal(response.status, 200, await response.clone().text());
          await response.body?.cancel();
        }
        const rows = await gateway.ledger();
        assert.equal(rows.length, 3);
        const charged = rows.reduce((sum, row) => sum + row.cost_micros, 0);
        const after = await gateway.account(account);
        assert.equal(after.balance_micros, 1500 - charged);
        assert.equal(after.held_micros, 0);
      } finally {
        await close();
      }
    },
  },

  {
    name:
      "invariant: every request that reached an upstream leaves exactly one ledger row (ok, stream, failed)",
    async run(database) {
      const { fake, gateway, close } = await startPricedGateway("chat", await database());
      try {
        const { secret, account } = await gateway.createKey({ balanceUsd: "1" });
        const ok = await gateway.post("/v1/chat/completions", secret, chatBody("one two three"));
        assert.equal(ok.status, 200);
        await ok.body?.cancel();

        const stream = await gateway.post(
          "/v1/chat/completions",
          secret,
          chatBody("four five", { stream: true }),
        );
        assert.equal(stream.status, 200);
        await stream.text(); // the stream closes only after its settlement

        fake.setBehaviour({ error: { status: 500, times: 10 } });
        const failed = await gateway.post("/v1/chat/completions", secret, chatBody("six"));
        assert.equal(failed.status, 502);
        await failed.body?.cancel();

        const rows = await gateway.ledger();
        assert.deepEqual(rows.map((row) => row.status), ["ok", "ok", "failed"]);
        assert.deepEqual(rows.map((row) => row.stream), [0, 1, 0]);
        assert.ok(rows[0]!.cost_micros > 0 && rows[1]!.cost_micros > 0);
        // A failed request costs nothing and says why.
        assert.equal(rows[2]!.cost_micros, 0);
        assert.equal(rows[2]!.output_tokens, 0);
        assert.match(rows[2]!.reason ?? "", /HTTP 500/);
        assert.equal(rows[2]!.channel, "up");
        assert.ok(rows[2]!.attempts >= 1);
        const after = await gateway.account(account);
        assert.equal(after.balance_micros, 1_000_000 - rows[0]!.cost_micros - rows[1]!.cost_micros);
        assert.equal(after.held_micros, 0);
      } finally {
        await close();
      }
    },
  },

  {
    name:
      "invariant: every request that reached an upstream leaves exactly one ledger row (client abandons a stream)",
    async run(database) {
      const { fake, gateway, close } = await startPricedGateway("chat", await database());
      try {
        const { secret, account } = await gateway.createKey({ balanceUsd: "1" });
        const gate = Promise.withResolvers<void>();
        // The upstream sends three chunks (role, "alpha", "beta"), then stalls.
        fake.setBehaviour({ gate: gate.promise, gateAfter: 3 });
        const controller = new AbortController();
        const response = await fetch(`${gateway.url}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
          body: JSON.stringify(chatBody("alpha beta gamma delta", { stream: true })),
          signal: controller.signal,
        });
        const events = readSse(response.body!)[Symbol.asyncIterator]();
        for (let i = 0; i < 3; i++) assert.equal((await events.next()).done, false);
        controller.abort();
        await events.return?.(undefined);

        await waitUntil(
          async () => (await gateway.ledger()).length === 1,
          "the abandoned stream's row",
        );
        const [row] = await gateway.ledger();
        assert.equal(row!.status, "aborted");
        // Billed for what was produced (the usage report never came): estimated, not zero.
        assert.equal(row!.estimated, 1);
        assert.ok(row!.output_tokens >= 2, `output tokens ${row!.output_tokens}`);
        assert.equal(row!.cost_micros, row!.output_tokens);
        const after = await gateway.account(account);
        assert.equal(after.held_micros, 0);
        assert.equal(after.balance_micros, 1_000_000 - row!.cost_micros);
        gate.resolve();
      } finally {
        await close();
      }
    },
  },

  {
    name:
      "invariant: the hourly rollups equal the ledger after concurrent traffic (ok, streams, failures, cache tokens)",
    async run(database) {
      const { fake, gateway, close } = await startPricedGateway("chat", await database());
      try {
        const keys = [
          await gateway.createKey({ balanceUsd: "1" }),
          await gateway.createKey({ unlimited: true, quotaTokens: 10_000_000 }),
          await gateway.createKey({ unlimited: true }),
        ];
        const idle = await gateway.createKey({ unlimited: true });
        const send = (i: number, stream: boolean) => {
          const key = keys[i % keys.length]!.secret;
          const request = i % 5 === 4
            ? gateway.post("/v1/messages", key, {
              model: "priced",
              max_tokens: 50,
              stream,
              messages: [{ role: "user", content: `messages ${i} words` }],
            })
            : gateway.post("/v1/chat/completions", key, chatBody(`request ${i}`, { stream }));
          return request.then((response) => response.text());
        };
        const round = (count: number) =>
          Promise.all(Array.from({ length: count }, (_, i) => send(i, i % 2 === 1)));
        fake.setBehaviour({ cachedTokens: 3, cacheWriteTokens: 2 });
        await round(40);
        fake.setBehaviour({ error: { status: 500, times: 6 } });
        await round(12);
        fake.setBehaviour({ midStreamError: { afterEvents: 2 } });
        await round(10);
        const rows = await gateway.ledger();
        assert.equal(rows.length, 62);
        const statuses = new Set(rows.map((row) => row.status));
        assert.ok(statuses.has("ok") && statuses.has("failed"), [...statuses].join(","));
        assert.ok(rows.some((row) => row.cached_tokens > 0 && row.cache_write_tokens > 0));
        assert.equal(await assertRollupsMatchLedger(gateway.db), 62);
        const unused = await gateway.db.kysely.selectFrom("api_keys").select("last_used_at")
          .where("id", "=", idle.id).executeTakeFirstOrThrow();
        assert.equal(unused.last_used_at, null, "a key never used has no last use");
      } finally {
        await close();
      }
    },
  },

  {
    name: "invariant: usage comes from the upstream's own report, cached tokens included",
    async run(database) {
      const { fake, gateway, close } = await startPricedGateway("chat", await database());
      try {
        const { secret } = await gateway.createKey({ balanceUsd: "1" });
        fake.setBehaviour({ cachedTokens: 3 });
        const response = await gateway.post(
          "/v1/chat/completions",
          secret,
          chatBody("the quick brown fox jumps over the lazy dog"),
        );
        const body = await response.json();
        const [row] = await gateway.ledger();
        assert.equal(row!.input_tokens, body.usage.prompt_tokens);
        assert.equal(row!.output_tokens, body.usage.completion_tokens);
        assert.equal(row!.cached_tokens, 3);
        assert.equal(row!.estimated, 0);
      } finally {
        await close();
      }
    },
  },

  {
    name: "invariant: usage is estimated only when the upstream reports none, and the row says so",
    async run(database) {
      const { fake, gateway, close } = await startPricedGateway("chat", await database());
      try {
        const { secret } = await gateway.createKey({ balanceUsd: "1" });
        fake.setBehaviour({ omitUsage: true });
        const plain = await gateway.post(
          "/v1/chat/completions",
          secret,
          chatBody("hello there world"),
        );
        assert.equal(plain.status, 200);
        await plain.body?.cancel();
        const streamed = await gateway.post(
          "/v1/chat/completions",
          secret,
          chatBody("hello there world", { stream: true }),
        );
        await streamed.text();
        const rows = await gateway.ledger();
        assert.equal(rows.length, 2);
        for (const row of rows) {
          assert.equal(row.estimated, 1);
          assert.ok(row.input_tokens > 0 && row.output_tokens > 0);
          assert.equal(row.cost_micros, row.output_tokens);
        }
      } finally {
        await close();
      }
    },
  },

  {
    name: "invariant: one token vocabulary across protocols (messages cache tokens count as input)",
    async run(database) {
      const fake = await startFakeUpstream({ name: "claude" });
      const gateway = await startGateway(
        configWith(
          channel({ name: "claude", protocol: "messages", baseUrl: fake.url, models: ["sonnet"] }),
          `[models.sonnet]\ninput_price = 3\noutput_price = 15\ncached_input_price = 0.3\ncache_write_price = 3.75\n`,
        ),
        { databaseUrl: await database() },
      );
      try {
        const { secret } = await gateway.createKey({ balanceUsd: "1" });
        fake.setBehaviour({ cachedTokens: 4, cacheWriteTokens: 2 });
        const client = new Anthropic({ apiKey: secret, baseURL: gateway.url });
        const message = await client.messages.create({
          model: "sonnet",
          max_tokens: 100,
          messages: [{ role: "user", content: "one two three four five six seven eight nine ten" }],
        });
        const usage = message.usage;
        const [row] = await gateway.ledger();
        const input = usage.input_tokens + (usage.cache_read_input_tokens ?? 0) +
          (usage.cache_creation_input_tokens ?? 0);
        assert.equal(row!.input_tokens, input);
        assert.equal(row!.cached_tokens, usage.cache_read_input_tokens);
        assert.equal(row!.cache_write_tokens, usage.cache_creation_input_tokens);
        // (uncached x 3 + cached x 0.3 + writes x 3.75 + output x 15) micros, rounded half up.
        const expected = Math.round(
          usage.input_tokens * 3 + 4 * 0.3 + 2 * 3.75 + usage.output_tokens * 15,
        );
        assert.equal(row!.cost_micros, expected);
      } finally {
        await gateway.close();
        await fake.close();
      }
    },
  },

  {
    name: "invariant: money is integer micro-USD in storage, with the group's multiplier",
    async run(database) {
      const fake = await startFakeUpstream({ name: "up" });
      const gateway = await startGateway(
        `[groups.default]\nmodels = ["*"]\nprice_multiplier = 1.5\n[models.mini]\ninput_price = 0.15\noutput_price = 0.6\n` +
          channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["mini"] }),
        { databaseUrl: await database() },
      );
      try {
        const { secret, account } = await gateway.createKey({ balanceUsd: "0.1" });
        const response = await gateway.post("/v1/chat/completions", secret, {
          model: "mini",
          max_tokens: 50,
          messages: [{ role: "user", content: "a b c d e f g h i j k l m n o p" }],
        });
        const { usage } = await response.json();
        const [row] = await gateway.ledger();
        const exact = (usage.prompt_tokens * 0.15 + usage.completion_tokens * 0.6) * 1.5;
        assert.equal(row!.cost_micros, Math.round(exact));
        assert.ok(Number.isInteger(row!.cost_micros));
        const after = await gateway.account(account);
        assert.ok(Number.isInteger(after.balance_micros));
        assert.equal(after.balance_micros, 100_000 - row!.cost_micros);
        assert.deepEqual(
          await storedMoneyTypes(gateway.db),
          {
            sqlite: ["integer", "integer"],
            postgres: ["bigint", "bigint"],
          }[gateway.db.kind],
        );
      } finally {
        await gateway.close();
        await fake.close();
      }
    },
  },

  {
    name: "accounting: an unlimited account is never refused nor debited, yet every row is priced",
    async run(database) {
      const { gateway, close } = await startPricedGateway("chat", await database());
      try {
        const { secret, account } = await gateway.createKey({ unlimited: true });
        for (let i = 0; i < 3; i++) {
          const response = await gateway.post("/v1/chat/completions", secret, chatBody(`hi ${i}`));
          assert.equal(response.status, 200);
          await response.body?.cancel();
        }
        const rows = await gateway.ledger();
        assert.equal(rows.length, 3);
        assert.ok(rows.every((row) => row.cost_micros > 0));
        const after = await gateway.account(account);
        assert.equal(after.balance_micros, 0);
        assert.equal(after.held_micros, 0);
      } finally {
        await close();
      }
    },
  },

  {
    name:
      "accounting: a key whose quota cannot cover the request is refused with 401 before the upstream",
    async run(database) {
      const { fake, gateway, close } = await startPricedGateway("chat", await database());
      try {
        const { secret } = await gateway.createKey({ unlimited: true, quotaTokens: 500 });
        // max_tokens 1000 alone exceeds the 500-token quota.
        const refused = await gateway.post("/v1/chat/completions", secret, chatBody("hi"));
        assert.equal(refused.status, 401);
        const body = await refused.json();
        assert.equal(body.error.code, "insufficient_user_quota");
        assert.match(body.error.message, /500 left/);
        assert.equal(fake.requests.length, 0);
        assert.equal((await gateway.ledger()).length, 0);

        const fits = await gateway.post(
          "/v1/chat/completions",
          secret,
          chatBody("hi", { max_tokens: 20 }),
        );
        assert.equal(fits.status, 200);
        await fits.body?.cancel();
        const [row] = await gateway.ledger();
        const key = await gateway.db.kysely.selectFrom("api_keys").selectAll().where(
          "quota_tokens",
          "=",
          500,
        )
          .executeTakeFirstOrThrow();
        assert.equal(key.used_tokens, row!.input_tokens + row!.output_tokens);
        assert.equal(key.held_tokens, 0);
      } finally {
        await close();
      }
    },
  },

  {
    name: "accounting: an exhausted key quota is refused at authentication with 401",
    async run(database) {
      const { gateway, close } = await startPricedGateway("chat", await database());
      try {
        const { id, secret } = await gateway.createKey({ unlimited: true, quotaTokens: 100 });
        await gateway.db.kysely.updateTable("api_keys").set({ used_tokens: 100 }).where(
          "id",
          "=",
          id,
        )
          .execute();
        const response = await gateway.post("/v1/messages", secret, {
          model: "priced",
          max_tokens: 5,
          messages: [{ role: "user", content: "hi" }],
        });
        assert.equal(response.status, 401);
        const body = await response.json();
        assert.equal(body.type, "error");
        assert.equal(body.error.type, "authentication_error");
        assert.equal(body.error.code, "insufficient_user_quota");
      } finally {
        await close();
      }
    },
  },

  {
    name:
      "accounting: an expired hold becomes an interrupted row billed for its input; a live one stays",
    async run(database) {
      const { gateway, close } = await startPricedGateway("chat", await database());
      try {
        // A quota, so that both stores hold the key's tokens (PostgreSQL holds none without one).
        const { id, account } = await gateway.createKey({
          balanceUsd: "1",
          quotaTokens: 1_000_000,
        });
        const accountId = (await gateway.account(account)).id;
        const now = 1_000_000;
        const hold = (holdId: string, expiresAt: number) =>
          gateway.db.store.takeHold({
            id: holdId,
            instanceId: "inst_test",
            accountId,
            keyId: id,
            amountMicros: 300,
            tokens: 40,
            // Expiry counts from the hold's creation, on the store's clock (PostgreSQL's own).
            createdAt: now,
            expiresAt,
            requestId: `req_${holdId}`,
            model: "priced",
            entryPoint: "chat",
            stream: true,
            inputTokens: 20,
            inputCostMicros: 7,
          });
        assert.deepEqual(await hold("expired", now - 1), { ok: true });
        assert.deepEqual(await hold("live", now + 60_000), { ok: true });
        assert.equal((await gateway.account(account)).held_micros, 600);

        const interrupted = await recoverHolds(gateway.db, {
          id: "inst_test",
          host: "test-host",
          pid: 1,
          isProcessAlive: () => true,
        }, now);
        assert.equal(interrupted, 1);
        const after = await gateway.account(account);
        assert.equal(after.held_micros, 300);
        assert.equal(after.balance_micros, 1_000_000 - 7);
        const rows = await gateway.ledger();
        assert.equal(rows.length, 1);
        assert.deepEqual(
          [rows[0]!.request_id, rows[0]!.status, rows[0]!.estimated, rows[0]!.input_tokens],
          ["req_expired", "interrupted", 1, 20],
        );
        assert.equal(rows[0]!.cost_micros, 7);
        const key = await gateway.db.kysely.selectFrom("api_keys").selectAll().where("id", "=", id)
          .executeTakeFirstOrThrow();
        assert.equal(key.held_tokens, 40);
        assert.equal(key.used_tokens, 20, "the interrupted input counts against the key");
        assert.equal(await assertRollupsMatchLedger(gateway.db), 1);
      } finally {
        await close();
      }
    },
  },
];
