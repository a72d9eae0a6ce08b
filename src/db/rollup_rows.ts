/**
 * The rollups (usage_hourly, usage_hourly_accounts and usage_daily, migrations/006) of the
 * ledger rows a SQLite batch writes: summed in memory by hour or day, account, key and model
 * (by hour and account alone), and written with the rows in one statement per few buckets
 * (holds.ts), where a row's own upserts would add three statements per settlement.
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
  /** Without the key and model: bucket, account, figures. */
  hourlyAccounts: Map<string, SqlValue[]>;
  daily: Map<string, SqlValue[]>;
}

/** Empty rollups for a batch. */
export function batchRollups(): BatchRollups {
  return { hourly: new Map(), hourlyAccounts: new Map(), daily: new Map() };
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
  const hour = s.createdAt - (s.createdAt % HOUR_MS);
  add(rollups.hourly, [hour, s.accountId, s.keyId, s.model], figures);
  add(rollups.hourlyAccounts, [hour, s.accountId], figures);
  add(
    rollups.daily,
    [s.createdAt - (s.createdAt % DAY_MS), s.accountId, s.keyId, s.model],
    figures,
  );
}

/** Adds `figures` to the row of `bucket` (its key columns' values), made if new. */
function add(rows: Map<string, SqlValue[]>, bucket: SqlValue[], figures: number[]) {
  const name = bucket.join("\u0000");
  const row = rows.get(name);
  if (row === undefined) {
    rows.set(name, [...bucket, ...figures]);
    return;
  }
  const at = bucket.length;
  for (let i = 0; i < figures.length; i++) row[at + i] = (row[at + i] as number) + figures[i]!;
}
