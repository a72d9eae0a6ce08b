/**
 * The rows a bench writes through tollgate's own store (bench/store.ts, and the
 * `http1-store` floor of bench/request_floor_proxy.ts): a funded account and its key, and
 * a hold and its settlement as a priced chat request writes them.
 */
import { issueKey } from "../src/auth/issue_key.ts";
import { createAccount } from "../src/db/accounts.ts";
import type { Db } from "../src/db/database.ts";
import { type NewHold, type Settle, settlementOf } from "../src/db/store.ts";
import { newRequestId } from "../src/api/request_context.ts";

/** An account and key the bench's holds go to. */
export interface HoldTarget {
  accountId: number;
  keyId: string;
}

/** Migrates `db`, then makes a funded account and a key on it. */
export async function fundedTarget(db: Db): Promise<HoldTarget> {
  const migration = await db.migrate();
  if (migration.error) throw new Error(migration.error.message);
  const account = (await createAccount(db.kysely, {
    name: `bench_${crypto.randomUUID()}`,
    balanceMicros: 1_000_000_000_000,
    unlimited: false,
  }))!;
  const { key } = await issueKey(db.kysely, { accountId: account.id, group: "g", createdAt: 0 });
  return { accountId: account.id, keyId: key.id };
}

/** A new hold on `target` for `model`, with the figures of a short chat request. */
export function benchHold(target: HoldTarget, model = "m"): NewHold {
  const now = Date.now();
  return {
    id: `hold_${crypto.randomUUID()}`,
    instanceId: "inst_bench",
    ...target,
    amountMicros: 1_000,
    tokens: 100,
    createdAt: now,
    expiresAt: now + 60_000,
    // Time-ordered, as the server's: the ledger's index of request ids grows at its end.
    requestId: newRequestId(now),
    model,
    entryPoint: "chat",
    stream: false,
    inputTokens: 50,
    inputCostMicros: 1,
  };
}

/** The settlement of `hold`: its ledger row, with `outputTokens` produced. */
export function benchSettlement(hold: NewHold, outputTokens = 50): Settle {
  return {
    ...settlementOf(hold),
    createdAt: Date.now(),
    channel: "c",
    upstreamModel: hold.model,
    attempts: 1,
    status: "ok",
    reason: null,
    inputTokens: 50,
    outputTokens,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    estimated: false,
    costMicros: 100,
    durationMs: 1,
  };
}
