/**
 * Holds no request will settle (expired, or taken by an instance that died): found by the
 * store (sql_store.ts), then released in an accounting batch (holds.ts) as `interrupted`
 * ledger rows billed for their estimated input, from what the hold row kept of its request;
 * and the holds a dead owner left in its hold journal (hold_journal.ts).
 */
import { type BatchRows, charge } from "./ledger_rows.ts";
import { placeholders, type SqlClient } from "./sql_client.ts";
import { INTERRUPTED_REASON } from "./store.ts";
import type { AccountTotals, KeyTotals } from "./totals.ts";

/** A hold no request will settle; its account and key were read beforehand. */
export type InterruptJob = {
  kind: "interrupt";
  holdId: string;
  accountId: number;
  keyId: string;
  now: number;
};

/** Releases a hold and returns what it kept of its request, for its `interrupted` row. */
export const RELEASE_INTERRUPTED = `DELETE FROM holds WHERE id = ? RETURNING amount_micros, tokens,
  created_at, request_id, model, entry_point, stream, input_tokens, input_cost_micros,
  key_budget_micros, account_budget_micros`;

/** The `interrupted` row of a hold no request will settle: billed for its estimated input. */
export function interrupt(
  job: InterruptJob,
  hold: Record<string, unknown>,
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
  rows: BatchRows,
): void {
  const createdAt = Number(hold.created_at);
  charge(
    {
      holdId: job.holdId,
      accountId: job.accountId,
      keyId: job.keyId,
      requestId: String(hold.request_id),
      createdAt: job.now,
      model: String(hold.model),
      entryPoint: String(hold.entry_point),
      channel: null,
      upstreamModel: null,
      attempts: 0,
      stream: Number(hold.stream) === 1,
      status: "interrupted",
      reason: INTERRUPTED_REASON,
      inputTokens: Number(hold.input_tokens),
      outputTokens: 0,
      cachedTokens: 0,
      cacheWriteTokens: 0,
      estimated: true,
      costMicros: Number(hold.input_cost_micros),
      durationMs: job.now - createdAt,
    },
    {
      micros: Number(hold.amount_micros),
      tokens: Number(hold.tokens),
      keyBudget: Number(hold.key_budget_micros ?? 0),
      accountBudget: Number(hold.account_budget_micros ?? 0),
    },
    accounts.get(job.accountId),
    keys.get(job.keyId),
    rows,
  );
}

/** Which of the given holds have their row. */
export async function presentHolds(
  client: SqlClient,
  holdIds: readonly string[],
): Promise<Set<string>> {
  if (holdIds.length === 0) return new Set();
  const { rows } = await client.execute({
    sql: `SELECT id FROM holds WHERE id IN (${placeholders(holdIds.length)})`,
    args: [...holdIds],
  });
  return new Set(rows.map((row) => String(row.id)));
}

/** The interrupt jobs of the given holds, with their accounts and keys (gone holds are left out). */
export async function interruptJobs(
  client: SqlClient,
  holdIds: readonly string[],
  now: number,
): Promise<InterruptJob[]> {
  if (holdIds.length === 0) return [];
  const { rows } = await client.execute({
    sql: `SELECT id, account_id, key_id FROM holds WHERE id IN (${placeholders(holdIds.length)})`,
    args: [...holdIds],
  });
  return rows.map((row) => ({
    kind: "interrupt",
    holdId: String(row.id),
    accountId: Number(row.account_id),
    keyId: String(row.key_id),
    now,
  }));
}
