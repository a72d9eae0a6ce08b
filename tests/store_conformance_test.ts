/**
 * The store's contract (src/db/store.ts), the same on every back-end: SQLite and
 * PostgreSQL. Two `Db` handles on one database stand for two gateway processes, so
 * the holds race as they do across nodes.
 */
import assert from "node:assert/strict";
import { issueKey } from "../src/auth/issue_key.ts";
import { createAccount } from "../src/db/accounts.ts";
import { type Db, openDatabase } from "../src/db/database.ts";
import { type NewHold, type Settle, settlementOf } from "../src/db/store.ts";
import { assertRollupsMatchLedger, countHolds } from "./accounting_support.ts";
import { stepOnEachDialect } from "./dialects.ts";

/** Two handles on one fresh database, an account and a key; closed by `close`. */
interface Fixture {
  a: Db;
  b: Db;
  accountId: number;
  keyId: string;
  close(): Promise<void>;
}

type OpenFixture = (account: { balanceMicros: number; quotaTokens?: number }) => Promise<Fixture>;

/** Opens two handles on the database at `url` and makes the account and key. */
async function fixture(
  url: string,
  account: { balanceMicros: number; quotaTokens?: number },
): Promise<Fixture> {
  const a = await openDatabase(url);
  const b = await openDatabase(url);
  assert.equal((await a.migrate()).error, undefined);
  const made = (await createAccount(a.kysely, {
    name: "conformance",
    balanceMicros: account.balanceMicros,
    unlimited: false,
  }))!;
  const { key } = await issueKey(a.kysely, {
    accountId: made.id,
    group: "default",
    quotaTokens: account.quotaTokens,
    createdAt: 0,
  });
  return {
    a,
    b,
    accountId: made.id,
    keyId: key.id,
    close: async () => {
      await a.close();
      await b.close();
    },
  };
}

/** A hold of `amountMicros` and `tokens` on the fixture's account and key. */
function newHold(f: Fixture, amountMicros: number, tokens = 10): NewHold {
  const id = `hold_${crypto.randomUUID()}`;
  return {
    id,
    instanceId: "inst_conformance",
    accountId: f.accountId,
    keyId: f.keyId,
    amountMicros,
    tokens,
    createdAt: Date.now(),
    expiresAt: Date.now() + 60_000,
    requestId: `req_${id}`,
    model: "m",
    entryPoint: "chat",
    stream: false,
    inputTokens: 3,
    inputCostMicros: 2,
  };
}

/** The settlement of `hold` at `costMicros`, 5 input and 7 output tokens. */
function settleOf(hold: NewHold, costMicros: number): Settle {
  return {
    ...settlementOf(hold),
    createdAt: Date.now(),
    channel: "c",
    upstreamModel: "m",
    attempts: 1,
    status: "ok",
    reason: null,
    inputTokens: 5,
    outputTokens: 7,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    estimated: false,
    costMicros,
    durationMs: 1,
  };
}

async function accountOf(f: Fixture) {
  return await f.a.kysely.selectFrom("accounts").selectAll().where("id", "=", f.accountId)
    .executeTakeFirstOrThrow();
}

async function keyOf(f: Fixture) {
  return await f.a.kysely.selectFrom("api_keys").selectAll().where("id", "=", f.keyId)
    .executeTakeFirstOrThrow();
}

async function ledgerCosts(f: Fixture): Promise<number> {
  const rows = await f.a.kysely.selectFrom("ledger").select("cost_micros").execute();
  return rows.reduce((sum, row) => sum + row.cost_micros, 0);
}

const CASES: { name: string; run(open: OpenFixture): Promise<void> }[] = [
  {
    name: "concurrent holds from two processes never overspend; refusals say balance",
    async run(open) {
      const f = await open({ balanceMicros: 10_000 });
      try {
        const results = await Promise.all(
          Array.from(
            { length: 60 },
            (_, i) => (i % 2 ? f.a : f.b).store.takeHold(newHold(f, 1000)),
          ),
        );
        assert.equal(results.filter((result) => result.ok).length, 10);
        for (const result of results.filter((result) => !result.ok)) {
          assert.equal(result.ok === false && result.reason, "balance");
          assert.ok(
            result.ok === false && result.reason === "balance" &&
              result.availableMicros >= 0 && result.availableMicros < 1000,
          );
        }
        assert.equal((await accountOf(f)).held_micros, 10_000);
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "holds and settlements of one turn (one batch) each get their own outcome",
    async run(open) {
      const f = await open({ balanceMicros: 5_000, quotaTokens: 1_000 });
      try {
        const first = newHold(f, 1_000);
        assert.deepEqual(await f.a.store.takeHold(first), { ok: true });
        // Issued together, so they share one transaction where the store batches.
        const [settled, ...results] = await Promise.all([
          f.a.store.settleHold(settleOf(first, 500)),
          f.a.store.takeHold(newHold(f, 9_000)),
          f.a.store.takeHold(newHold(f, 100)),
          f.a.store.takeHold(newHold(f, 100, 5_000)),
          f.a.store.takeHold(newHold(f, 200)),
        ]);
        assert.deepEqual(settled, []);
        assert.deepEqual(results.map((result) => result.ok || result.reason), [
          "balance",
          true,
          "key_quota",
          true,
        ]);
        const account = await accountOf(f);
        assert.deepEqual([account.balance_micros, account.held_micros], [4_500, 300]);
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "a turn's many holds and settlements are each written, in their order",
    async run(open) {
      const f = await open({ balanceMicros: 100_000, quotaTokens: 10_000 });
      try {
        // More than one INSERT's worth of rows (holds.ts writes them 16 at a time).
        const holds = Array.from({ length: 37 }, () => newHold(f, 1_000));
        const taken = await Promise.all(holds.map((hold) => f.a.store.takeHold(hold)));
        assert.ok(taken.every((result) => result.ok));
        assert.equal(await countHolds(f.a), 37);
        await Promise.all(holds.map((hold, i) => f.a.store.settleHold(settleOf(hold, i + 1))));
        const rows = await f.a.kysely.selectFrom("ledger").select(["request_id", "cost_micros"])
          .orderBy("id").execute();
        assert.deepEqual(
          rows.map((row) => [row.request_id, row.cost_micros]),
          holds.map((hold, i) => [hold.requestId, i + 1]),
        );
        const account = await accountOf(f);
        assert.deepEqual([account.balance_micros, account.held_micros], [100_000 - 703, 0]);
        const key = await keyOf(f);
        assert.deepEqual([key.held_tokens, key.used_tokens], [0, 37 * 12]);
        assert.equal(await countHolds(f.a), 0);
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "a settlement that cannot be written is named, and the others of its batch are written",
    async run(open) {
      const f = await open({ balanceMicros: 100_000 });
      try {
        const holds = [newHold(f, 1_000), newHold(f, 1_000), newHold(f, 1_000)];
        for (const hold of holds) assert.deepEqual(await f.a.store.takeHold(hold), { ok: true });
        // Its key does not exist: its ledger row cannot be written.
        const broken = { ...settleOf(holds[1]!, 7), keyId: "key_gone" };
        const outcomes = await Promise.all([
          f.a.store.settleHold(settleOf(holds[0]!, 5)),
          f.a.store.settleHold(broken),
          f.a.store.settleHold(settleOf(holds[2]!, 9)),
        ]);
        // A store may give the settlements of a batch one promise, which names its failures.
        const failures = [...new Set(outcomes)].flat();
        assert.deepEqual(failures.map((failure) => failure.settle), [broken]);
        const rows = await f.a.kysely.selectFrom("ledger").select(["request_id", "cost_micros"])
          .orderBy("id").execute();
        assert.deepEqual(rows.map((row) => [row.request_id, row.cost_micros]), [
          [holds[0]!.requestId, 5],
          [holds[2]!.requestId, 9],
        ]);
        // The broken one's hold stays for recovery, whose row it becomes.
        assert.equal(await countHolds(f.a), 1);
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "a key without a quota is never refused for quota while other holds settle",
    async run(open) {
      const f = await open({ balanceMicros: 5_000 });
      try {
        const round = async (db: Db) => {
          const hold = newHold(f, 1000);
          const result = await db.store.takeHold(hold);
          if (result.ok) await db.store.settleHold(settleOf(hold, 1));
          return result;
        };
        const results = await Promise.all(
          Array.from({ length: 80 }, (_, i) => round(i % 2 ? f.a : f.b)),
        );
        for (const result of results) {
          if (!result.ok) assert.equal(result.reason, "balance");
        }
        const granted = results.filter((result) => result.ok).length;
        const account = await accountOf(f);
        assert.equal(account.balance_micros, 5_000 - granted);
        assert.equal(account.balance_micros + (await ledgerCosts(f)), 5_000);
        assert.equal(account.held_micros, 0);
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "refusals carry the reason and the figures of the refusing check",
    async run(open) {
      const f = await open({ balanceMicros: 5_000, quotaTokens: 100 });
      try {
        assert.deepEqual(await f.a.store.takeHold(newHold(f, 6_000)), {
          ok: false,
          reason: "balance",
          availableMicros: 5_000,
        });
        assert.deepEqual(await f.a.store.takeHold(newHold(f, 100, 200)), {
          ok: false,
          reason: "key_quota",
          availableTokens: 100,
        });
        // The key's refusal took back the account's part.
        assert.equal((await accountOf(f)).held_micros, 0);
        assert.deepEqual(await f.b.store.takeHold(newHold(f, 4_000, 60)), { ok: true });
        assert.deepEqual(await f.a.store.takeHold(newHold(f, 100, 60)), {
          ok: false,
          reason: "key_quota",
          availableTokens: 40,
        });
        assert.equal(await countHolds(f.a), 1);
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "a settlement debits at most what the balance covers; the ledger equals the debits",
    async run(open) {
      const f = await open({ balanceMicros: 1_000, quotaTokens: 1_000 });
      try {
        const hold = newHold(f, 1_000, 50);
        assert.deepEqual(await f.a.store.takeHold(hold), { ok: true });
        assert.equal((await keyOf(f)).held_tokens, 50);
        await f.b.store.settleHold(settleOf(hold, 5_000));
        const account = await accountOf(f);
        assert.equal(account.balance_micros, 0);
        assert.equal(account.held_micros, 0);
        assert.equal(await ledgerCosts(f), 1_000);
        const key = await keyOf(f);
        assert.deepEqual([key.held_tokens, key.used_tokens], [0, 12]);
        assert.equal(await countHolds(f.a), 0);
        // The hourly rollup records what was debited, as the row does.
        assert.equal(await assertRollupsMatchLedger(f.a), 1);
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "two processes interrupting the same holds write one row each, billed for input",
    async run(open) {
      const f = await open({ balanceMicros: 10_000, quotaTokens: 1_000 });
      try {
        const taken = [newHold(f, 1_000), newHold(f, 1_000), newHold(f, 1_000)];
        for (const hold of taken) assert.deepEqual(await f.a.store.takeHold(hold), { ok: true });
        const clock = await f.a.store.heartbeat({
          id: "inst_other",
          host: "h",
          pid: 1,
          heartbeatAt: Date.now(),
        });
        assert.ok(Math.abs(clock - Date.now()) < 5_000, "the store's clock is about now");
        const ids = await f.a.store.findReleasableHolds(clock, ["inst_conformance"]);
        assert.equal(ids.length, 3);
        await Promise.all([
          f.a.store.interruptHolds(ids, clock),
          f.b.store.interruptHolds(ids, clock),
        ]);
        const rows = await f.a.kysely.selectFrom("ledger").selectAll().execute();
        assert.deepEqual(rows.map((row) => [row.status, row.estimated, row.cost_micros]), [
          ["interrupted", 1, 2],
          ["interrupted", 1, 2],
          ["interrupted", 1, 2],
        ]);
        const account = await accountOf(f);
        assert.deepEqual([account.balance_micros, account.held_micros], [10_000 - 6, 0]);
        const key = await keyOf(f);
        assert.deepEqual([key.held_tokens, key.used_tokens], [0, 9]);
        assert.equal(await assertRollupsMatchLedger(f.a), 3);
        await f.b.store.removeInstances(["inst_other"]);
        assert.deepEqual(await f.a.store.listInstances(), []);
      } finally {
        await f.close();
      }
    },
  },
  {
    name:
      "a hold grows only by what the balance and the quota cover; its settlement releases the whole",
    async run(open) {
      const f = await open({ balanceMicros: 5_000, quotaTokens: 1_000 });
      try {
        const hold = newHold(f, 1_000, 100);
        assert.deepEqual(await f.a.store.takeHold(hold), { ok: true });
        assert.deepEqual(await f.b.store.extendHold(hold.id, 2_500, 300), { ok: true });
        assert.deepEqual(await f.a.store.extendHold(hold.id, 1_501, 0), {
          ok: false,
          reason: "balance",
          availableMicros: 1_500,
        });
        assert.deepEqual(await f.a.store.extendHold(hold.id, 100, 601), {
          ok: false,
          reason: "key_quota",
          availableTokens: 600,
        });
        const held = async () => {
          const [account, key] = [await accountOf(f), await keyOf(f)];
          return [account.held_micros, key.held_tokens];
        };
        assert.deepEqual(await held(), [3_500, 400], "refusals took nothing, not even in part");
        assert.deepEqual(await f.a.store.extendHold("hold_gone", 1, 0), {
          ok: false,
          reason: "balance",
          availableMicros: 0,
        });
        await f.b.store.settleHold(settleOf(hold, 3_000));
        assert.deepEqual(await held(), [0, 0], "the grown hold released whole");
        assert.equal((await accountOf(f)).balance_micros, 2_000);
        assert.deepEqual(await f.a.store.extendHold(hold.id, 1, 0), {
          ok: false,
          reason: "balance",
          availableMicros: 0,
        }, "a settled hold grows no more");
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "concurrent extensions and holds from two processes never overspend, in money or tokens",
    async run(open) {
      const f = await open({ balanceMicros: 10_000, quotaTokens: 2_000 });
      try {
        const holds = [newHold(f, 1_000, 100), newHold(f, 1_000, 100)];
        for (const hold of holds) assert.deepEqual(await f.a.store.takeHold(hold), { ok: true });
        // 8,000 micro-USD and 1,800 tokens left: extensions of 500 and 100 and new holds of
        // 500 and 100 race for them, from both processes.
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => {
          const db = i % 2 ? f.a : f.b;
          return i % 4 < 3
            ? db.store.extendHold(holds[i % 2]!.id, 500, 100)
            : db.store.takeHold(newHold(f, 500, 100));
        }));
        const granted = results.filter((result) => result.ok).length;
        assert.equal(granted, 16, "exactly what the balance covers");
        for (const result of results) {
          if (result.ok) continue;
          assert.equal(result.reason, "balance");
          assert.ok(result.reason === "balance" && result.availableMicros < 500);
        }
        assert.deepEqual(
          [(await accountOf(f)).held_micros, (await keyOf(f)).held_tokens],
          [10_000, 1_800],
        );
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "concurrent extensions never pass a key's quota",
    async run(open) {
      const f = await open({ balanceMicros: 1_000_000, quotaTokens: 1_000 });
      try {
        const hold = newHold(f, 10, 100);
        assert.deepEqual(await f.a.store.takeHold(hold), { ok: true });
        const grown = await Promise.all(
          Array.from(
            { length: 30 },
            (_, i) => (i % 2 ? f.a : f.b).store.extendHold(hold.id, 10, 50),
          ),
        );
        assert.equal(grown.filter((result) => result.ok).length, 18, "900 tokens left");
        assert.ok(grown.every((result) => result.ok || result.reason === "key_quota"));
        assert.equal((await keyOf(f)).held_tokens, 1_000);
      } finally {
        await f.close();
      }
    },
  },
  {
    name: "keys are found by the hash of their secret, with their account's state",
    async run(open) {
      const f = await open({ balanceMicros: 0 });
      try {
        assert.equal(await f.b.store.hasKeys(), true);
        const stored = await keyOf(f);
        const found = await f.b.store.findKey(stored.hash);
        assert.equal(found?.id, f.keyId);
        assert.equal(found?.account_id, f.accountId);
        assert.equal(found?.account_name, "conformance");
        assert.equal(found?.account_enabled, 1);
        assert.equal(found?.account_unlimited, 0);
        assert.equal(found?.enabled, 1);
        assert.equal(found?.quota_tokens, null);
        assert.equal(await f.b.store.findKey("no such hash"), undefined);
        await f.a.kysely.deleteFrom("api_keys").execute();
        assert.equal(await f.b.store.hasKeys(), false);
      } finally {
        await f.close();
      }
    },
  },
];

Deno.test("store conformance", (t) =>
  stepOnEachDialect(t, CASES, ({ run }, url) => run((account) => fixture(url, account))));
