import assert from "node:assert/strict";
import type { Principal } from "../auth/principal.ts";
import { issueKey } from "../auth/issue_key.ts";
import { parseConfig } from "../config/schema.ts";
import { createAccount } from "../db/accounts.ts";
import { type Db, openDatabase } from "../db/database.ts";
import { silentLogger } from "../log.ts";
import type { Accounting } from "./accounting.ts";
import type { AttemptRecord } from "./attempt_record.ts";
import { createLedgerAccounting } from "./ledger_accounting.ts";

/** One output token costs 1 micro-USD, input is free: a hold is max_tokens micros. */
const CONFIG = parseConfig({
  models: { m: { input_price: 0, output_price: 1, max_output_tokens: 1_000 } },
  groups: { default: { models: ["*"] } },
});

/** Accounting on a fresh SQLite file, with an account of `balanceMicros` and its key. */
async function withAccounting(
  account: { balanceMicros: number; unlimited?: boolean; quotaTokens?: number },
  test: (accounting: Accounting, principal: Principal, db: Db) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_accounting_" });
  const db = await openDatabase(`file:${dir}/t.db`);
  try {
    assert.equal((await db.migrate()).error, undefined);
    const made = (await createAccount(db.kysely, {
      name: "a",
      balanceMicros: account.balanceMicros,
      unlimited: account.unlimited ?? false,
    }))!;
    const { key } = await issueKey(db.kysely, {
      accountId: made.id,
      group: "default",
      quotaTokens: account.quotaTokens,
      createdAt: 0,
    });
    const principal = {
      id: key.id,
      accountId: made.id,
      group: "default",
      unlimited: account.unlimited ?? false,
      quotaTokens: account.quotaTokens ?? null,
    } as Principal;
    const accounting = createLedgerAccounting({
      store: db.store,
      instanceId: "inst_test",
      now: Date.now,
      log: silentLogger,
    });
    await test(accounting, principal, db);
  } finally {
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function admission(principal: Principal) {
  return {
    requestId: `req_${crypto.randomUUID()}`,
    principal,
    config: CONFIG,
    entry: "chat" as const,
    model: "m",
    stream: false,
    inputTokens: 10,
    likelyInputTokens: 8,
    maxOutputTokens: 1_000,
  };
}

const USAGE = { input_tokens: 10, output_tokens: 300, cached_tokens: 0, cache_write_tokens: 0 };

/** An attempt of `model` that served USAGE. */
const served = (model: string): AttemptRecord => ({
  channel: "c",
  model,
  upstreamModel: model,
  outcome: "ok",
  usage: USAGE,
});

async function held(db: Db) {
  const account = await db.kysely.selectFrom("accounts").selectAll().executeTakeFirstOrThrow();
  const key = await db.kysely.selectFrom("api_keys").selectAll().executeTakeFirstOrThrow();
  return { micros: account.held_micros, tokens: key.held_tokens, balance: account.balance_micros };
}

Deno.test("hold.extend: grows the hold while the balance and the quota cover it; the settlement releases it whole", () =>
  withAccounting(
    { balanceMicros: 2_500, quotaTokens: 3_000 },
    async (accounting, principal, db) => {
      const hold = await accounting.hold(admission(principal));
      assert.deepEqual(await held(db), { micros: 1_000, tokens: 1_010, balance: 2_500 });
      assert.equal(await hold.extend({ amountMicros: 1_000, tokens: 1_000 }), true);
      assert.deepEqual(await held(db), { micros: 2_000, tokens: 2_010, balance: 2_500 });
      assert.equal(await hold.extend({ amountMicros: 501, tokens: 0 }), false, "500 left");
      assert.equal(await hold.extend({ amountMicros: 0, tokens: 991 }), false, "990 tokens left");
      assert.deepEqual(await held(db), { micros: 2_000, tokens: 2_010, balance: 2_500 });
      await assert.rejects(hold.extend({ amountMicros: -1, tokens: 0 }), RangeError);
      await assert.rejects(hold.extend({ amountMicros: 0.5, tokens: 0 }), RangeError);
      hold.settle({
        status: "ok",
        attempts: [
          { channel: "c", model: "m", upstreamModel: "m", outcome: "failed" },
          served("m"),
        ],
      });
      await accounting.drain();
      assert.deepEqual(await held(db), { micros: 0, tokens: 0, balance: 2_200 });
    },
  ));

Deno.test("hold.extend: an unlimited account holds no money and a key without a quota no tokens, as the hold itself", () =>
  withAccounting({ balanceMicros: 0, unlimited: true }, async (accounting, principal, db) => {
    const hold = await accounting.hold(admission(principal));
    assert.equal(await hold.extend({ amountMicros: 10 ** 12, tokens: 10 ** 9 }), true);
    assert.deepEqual(await held(db), { micros: 0, tokens: 0, balance: 0 });
    hold.settle({ status: "ok", attempts: [served("m")] });
    await accounting.drain();
    const [row] = await db.kysely.selectFrom("ledger").selectAll().execute();
    assert.equal(row?.cost_micros, 300, "the full cost recorded, nothing debited");
  }));
