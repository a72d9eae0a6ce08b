/**
 * The rollups (usage_hourly and usage_daily, migrations/006) of the ledger rows a SQLite
 * batch writes: summed in memory by hour or day, account, key and model, and written with
 * the rows in one statement per few buckets (holds.ts), where a row's own upsert would add
 * two statements per settlement.
 */
import type { SqlValue } from "./sql_client.ts";
import type { Settle } from "./store.ts";

/** An hour in milliseconds: usage_hourly's bucket. */
export const HOUR_MS = 3_600_000;
/** A day (UTC) in milliseconds: usage_daily's bucket. */
export const DAY_MS = 86_400_000;

/** A batch's rollup rows by bucket, each in the upsert's column order (bucket first). */
export interface BatchRollups {
  hourly: Map<string, SqlValue[]>;
  daily: Map<string, SqlValue[]>;
}

/** Empty rollups for a batch. */
export function batchRollups(): BatchRollups {
  return { hourly: new Map(), daily: new Map() };
}

/** Adds a ledger row of `s` costing `cost` to its hour's and its day's rollups. */
export function rollUp(rollups: BatchRollups, s: Settle, cost: number): void {
  const error = s.status === "failed" || s.status === "interrupted" ? 1 : 0;
  const figures = [
    1,
    error,
    s.inputTokens,
    s.outputTokens,
    s.cachedTokens,
    s.cacheWriteTokens,
    cost,
  ];
  add(rollups.hourly, s.createdAt - (s.createdAt % HOUR_MS), s, figures);
  add(rollups.daily, s.createdAt - (s.createdAt % DAY_MS), s, figures);
}

/** Adds `figures` to the row of `bucket` and `s`'s account, key and model. */
function add(rows: Map<string, SqlValue[]>, bucket: number, s: Settle, figures: number[]) {
  const name = `${bucket}\u0000${s.accountId}\u0000${s.keyId}\u0000${s.model}`;
  const row = rows.get(name);
  if (row === undefined) {
    rows.set(name, [bucket, s.accountId, s.keyId, s.model, ...figures]);
    return;
  }
  for (let i = 0; i < figures.length; i++) row[4 + i] = (row[4 + i] as number) + figures[i]!;
}
