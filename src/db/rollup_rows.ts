/**
 * The hourly rollups (usage_rollups, migrations/006) of the ledger rows a SQLite batch
 * writes: summed in memory by hour, account, key and model, and written with the rows in
 * one statement per few buckets (holds.ts), where a row's own upsert would add a statement
 * per settlement.
 */
import type { SqlValue } from "./sql_client.ts";
import type { Settle } from "./store.ts";

/** An hour in milliseconds: the rollups' bucket. */
export const HOUR_MS = 3_600_000;

/** Whether a ledger row of this status counts as an error in its rollup. */
export function isErrorStatus(status: string): boolean {
  return status === "failed" || status === "interrupted";
}

/** Adds a ledger row of `s` costing `cost` to its hour's rollup among the batch's. */
export function rollUp(rollups: Map<string, SqlValue[]>, s: Settle, cost: number): void {
  const hour = s.createdAt - (s.createdAt % HOUR_MS);
  const bucket = `${hour}\u0000${s.accountId}\u0000${s.keyId}\u0000${s.model}`;
  const error = isErrorStatus(s.status) ? 1 : 0;
  const row = rollups.get(bucket);
  if (row === undefined) {
    rollups.set(bucket, [
      hour,
      s.accountId,
      s.keyId,
      s.model,
      1,
      error,
      s.inputTokens,
      s.outputTokens,
      s.cachedTokens,
      s.cacheWriteTokens,
      cost,
    ]);
    return;
  }
  const add = (index: number, value: number) => row[index] = (row[index] as number) + value;
  add(4, 1);
  add(5, error);
  add(6, s.inputTokens);
  add(7, s.outputTokens);
  add(8, s.cachedTokens);
  add(9, s.cacheWriteTokens);
  add(10, cost);
}
