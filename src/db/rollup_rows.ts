/**
 * The rollups (usage_hourly, usage_hourly_accounts and usage_daily, migrations/006) of the
 * ledger rows a SQLite batch writes: summed in memory, then written with the rows in one
 * statement per few buckets (ledger_rows.ts), where a row's own upserts would add three statements
 * a settlement. A settlement only adds to its hour's row, found through maps of the strings
 * it carries (no key string is built for each); the accounts'
 * hours and the days are summed from those rows once, when the batch is written.
 */
import { ChannelRollups } from "./channel_rollup_rows.ts";
import type { SqlValue } from "./sql_client.ts";
import type { Settle } from "./store.ts";

/** An hour in milliseconds: usage_hourly's bucket. */
export const HOUR_MS = 3_600_000;
/** A day (UTC) in milliseconds: usage_daily's bucket. */
export const DAY_MS = 86_400_000;

/** The figures of a rollup row, in the upserts' column order after the row's key. */
const FIGURES = 7;

/** A batch's rollup rows, written by `rows`. */
export class BatchRollups {
  /** Figures by key id, model and hour, each with its account id first. */
  readonly #hours = new Map<string, Map<string, Map<number, number[]>>>();
  /** The rows' upstream attempts by minute and channel (channel_rollup_rows.ts). */
  readonly channels = new ChannelRollups();

  /** Adds a ledger row of `s` costing `cost` to its hour's row, under the model that served. */
  add(s: Settle, cost: number): void {
    this.channels.add(s);
    let models = this.#hours.get(s.keyId);
    if (models === undefined) this.#hours.set(s.keyId, models = new Map());
    const model = s.servedModel ?? s.model;
    let hours = models.get(model);
    if (hours === undefined) models.set(model, hours = new Map());
    const hour = s.createdAt - (s.createdAt % HOUR_MS);
    let row = hours.get(hour);
    if (row === undefined) hours.set(hour, row = [s.accountId, 0, 0, 0, 0, 0, 0, 0]);
    row[1]!++;
    if (s.status === "failed" || s.status === "interrupted") row[2]!++;
    row[3]! += s.inputTokens;
    row[4]! += s.outputTokens;
    row[5]! += s.cachedTokens;
    row[6]! += s.cacheWriteTokens;
    row[7]! += cost;
  }

  /**
   * The rows of usage_hourly (hour, account, key, model, figures), usage_hourly_accounts
   * (hour, account, figures) and usage_daily (day, account, key, model, figures).
   */
  rows(): { hourly: SqlValue[][]; hourlyAccounts: SqlValue[][]; daily: SqlValue[][] } {
    const hourly: SqlValue[][] = [];
    const accounts = new Map<string, SqlValue[]>();
    const daily = new Map<string, SqlValue[]>();
    for (const [keyId, models] of this.#hours) {
      for (const [model, hours] of models) {
        for (const [hour, [accountId, ...figures]] of hours) {
          hourly.push([hour, accountId!, keyId, model, ...figures]);
          sum(accounts, `${hour}:${accountId}`, [hour, accountId!], figures);
          const day = hour - (hour % DAY_MS);
          sum(daily, `${day}:${keyId}:${model}`, [day, accountId!, keyId, model], figures);
        }
      }
    }
    return { hourly, hourlyAccounts: [...accounts.values()], daily: [...daily.values()] };
  }
}

/** Adds `figures` to the row named `name` (made of `key` if new). */
function sum(rows: Map<string, SqlValue[]>, name: string, key: SqlValue[], figures: number[]) {
  const row = rows.get(name);
  if (row === undefined) {
    rows.set(name, [...key, ...figures]);
    return;
  }
  for (let i = 0; i < FIGURES; i++) {
    row[key.length + i] = (row[key.length + i] as number) + figures[i]!;
  }
}
