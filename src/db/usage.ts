/**
 * Usage over a time range, summed by account, key and model or by hour or day. The whole
 * days of the range come from the daily rollups, the other whole hours from the hourly ones
 * (by account alone when no key or model is asked for; all kept with the ledger rows in
 * their transaction), and the partial hours at its edges from the ledger itself: a sum over
 * months reads a few thousand rows and is still exact to the millisecond asked. Each query
 * reads its big part in its table's key order, so SQLite groups it without sorting; the
 * small parts are merged here.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import { DAY_MS, HOUR_MS } from "./rollup_rows.ts";
import type { Database, UsageFiguresColumns } from "./schema.ts";

/** Which usage to sum; times are ms since the epoch, `until` exclusive. */
export interface UsageScope {
  accountId?: number;
  keyId?: string;
  model?: string;
  since?: number;
  until?: number;
}

/** What a range of usage sums to: a rollup's figures. */
export type UsageFigures = Omit<UsageFiguresColumns, "account_id" | "key_id" | "model">;

/** Usage of one account, key and model. */
export interface UsageRow extends UsageFigures {
  account: string;
  key_id: string;
  model: string;
}

/** Usage of one time bucket, named by its first millisecond. */
export interface UsagePoint extends UsageFigures {
  t: number;
}

/** A half-open range of milliseconds; an end left undefined is open. */
export interface TimeRange {
  from?: number;
  to?: number;
}

/** Where a range is read from. */
export interface RangeSplit {
  /** Its whole hours (bounds on hour starts): usage_hourly; undefined when none. */
  hours?: TimeRange;
  /** Its whole days, within those hours: usage_daily; undefined when none. */
  days?: TimeRange;
  /** Its partial hours at the edges: the ledger. */
  ledger: Required<TimeRange>[];
}

const FIGURES = [
  "requests",
  "errors",
  "input_tokens",
  "output_tokens",
  "cached_tokens",
  "cache_write_tokens",
  "cost_micros",
] as const;

const ceil = (ms: number, unit: number) => Math.ceil(ms / unit) * unit;
const floor = (ms: number, unit: number) => Math.floor(ms / unit) * unit;

/** Splits [since, until) into whole days, whole hours and the partial hours at its edges. */
export function splitRange(since?: number, until?: number): RangeSplit {
  if (since !== undefined && until !== undefined && since >= until) return { ledger: [] };
  const from = since === undefined ? undefined : ceil(since, HOUR_MS);
  const to = until === undefined ? undefined : floor(until, HOUR_MS);
  if (from !== undefined && to !== undefined && from > to) {
    // Inside one hour: the ledger alone.
    return { ledger: [{ from: since!, to: until! }] };
  }
  const ledger: Required<TimeRange>[] = [];
  if (since !== undefined && since < from!) ledger.push({ from: since, to: from! });
  if (until !== undefined && to! < until) ledger.push({ from: to!, to: until });
  if (from !== undefined && from === to) return { ledger };
  const dayFrom = from === undefined ? undefined : ceil(from, DAY_MS);
  const dayTo = to === undefined ? undefined : floor(to, DAY_MS);
  const hours = { from, to };
  if (dayFrom !== undefined && dayTo !== undefined && dayFrom >= dayTo) return { hours, ledger };
  return { hours, days: { from: dayFrom, to: dayTo }, ledger };
}

/** The parts of `hours` outside `days`: the hours before the first whole day and after the last. */
function hoursOutside(hours: TimeRange, days: TimeRange): Required<TimeRange>[] {
  const parts: Required<TimeRange>[] = [];
  if (hours.from !== undefined && hours.from < days.from!) {
    parts.push({ from: hours.from, to: days.from! });
  }
  if (hours.to !== undefined && days.to! < hours.to) parts.push({ from: days.to!, to: hours.to });
  return parts;
}

/** Sums usage by account, key and model, largest cost first. */
export async function usageByKey(db: Kysely<Database>, scope: UsageScope): Promise<UsageRow[]> {
  const split = splitRange(scope.since, scope.until);
  const parts: RawBuilder<unknown>[] = [];
  const columns = sql`account_id, key_id, model, ${sql.join(FIGURES.map((name) => sql.ref(name)))}`;
  if (split.days) {
    parts.push(sql`SELECT ${columns} FROM usage_daily ${where(scope, "day", split.days)}`);
    for (const range of hoursOutside(split.hours!, split.days)) {
      parts.push(sql`SELECT ${columns} FROM usage_hourly ${where(scope, "hour", range)}`);
    }
  } else if (split.hours) {
    parts.push(sql`SELECT ${columns} FROM usage_hourly ${where(scope, "hour", split.hours)}`);
  }
  for (const range of split.ledger) {
    parts.push(sql`SELECT ${columns} FROM (${ledgerRows(scope, range)}) l`);
  }
  if (parts.length === 0) return [];
  const { rows } = await sql<Record<string, unknown>>`
    SELECT a.name AS account, u.key_id, u.model, ${sums()}
    FROM (${sql.join(parts, sql` UNION ALL `)}) u JOIN accounts a ON a.id = u.account_id
    GROUP BY u.account_id, a.name, u.key_id, u.model
    ORDER BY cost_micros DESC, requests DESC, a.name, u.key_id, u.model`.execute(db);
  return rows.map((row) => ({
    account: String(row.account),
    key_id: String(row.key_id),
    model: String(row.model),
    ...figuresOf(row),
  }));
}

/** Sums usage by hour or by day (UTC), oldest first; buckets without usage left out. */
export async function usageSeries(
  db: Kysely<Database>,
  scope: UsageScope,
  bucket: "hour" | "day",
): Promise<UsagePoint[]> {
  const split = splitRange(scope.since, scope.until);
  const bucketMs = bucket === "hour" ? HOUR_MS : DAY_MS;
  const queries: RawBuilder<Record<string, unknown>>[] = [];
  /** Rows of `from` (a subquery, or a table whose key begins with `column`) by bucket. */
  const byBucket = (from: RawBuilder<unknown>, column: string, whereClause = sql``) => {
    const t = column === bucket
      ? sql.ref(column)
      : sql`${sql.ref(column)} - ${sql.ref(column)} % ${sql.lit(bucketMs)}`;
    queries.push(sql<Record<string, unknown>>`
      SELECT ${t} AS t, ${sums()} FROM ${from} u ${whereClause} GROUP BY ${t}`);
  };
  // Over every key and model the hours by account alone serve: a row per hour and account.
  const hourly = scope.keyId === undefined && scope.model === undefined
    ? sql`usage_hourly_accounts`
    : sql`usage_hourly`;
  // The big part is read in its table's order and grouped by its key's first column.
  if (bucket === "day" && split.days) {
    byBucket(sql`usage_daily`, "day", where(scope, "day", split.days));
    for (const range of hoursOutside(split.hours!, split.days)) {
      byBucket(hourly, "hour", where(scope, "hour", range));
    }
  } else if (split.hours) {
    byBucket(hourly, "hour", where(scope, "hour", split.hours));
  }
  for (const range of split.ledger) byBucket(sql`(${ledgerRows(scope, range)})`, "created_at");
  const points = new Map<number, UsagePoint>();
  for (const query of queries) {
    for (const row of (await query.execute(db)).rows) {
      const t = Number(row.t);
      const figures = figuresOf(row);
      const point = points.get(t);
      if (point === undefined) points.set(t, { t, ...figures });
      else for (const name of FIGURES) point[name] += figures[name];
    }
  }
  return [...points.values()].sort((a, b) => a.t - b.t);
}

/** The sums of FIGURES over `u`, named as they are. */
function sums(): RawBuilder<unknown> {
  return sql.join(FIGURES.map((name) => sql`sum(u.${sql.ref(name)}) AS ${sql.ref(name)}`));
}

function figuresOf(row: Record<string, unknown>): UsageFigures {
  return {
    requests: Number(row.requests ?? 0),
    errors: Number(row.errors ?? 0),
    input_tokens: Number(row.input_tokens ?? 0),
    output_tokens: Number(row.output_tokens ?? 0),
    cached_tokens: Number(row.cached_tokens ?? 0),
    cache_write_tokens: Number(row.cache_write_tokens ?? 0),
    cost_micros: Number(row.cost_micros ?? 0),
  };
}

/** The scope's ledger rows in `range`, one a request, with a rollup's columns and `created_at`. */
function ledgerRows(scope: UsageScope, range: Required<TimeRange>): RawBuilder<unknown> {
  return sql`
    SELECT created_at, account_id, key_id, model, 1 AS requests,
      CASE WHEN status IN ('failed', 'interrupted') THEN 1 ELSE 0 END AS errors,
      input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros
    FROM ledger ${where(scope, "created_at", range)}`;
}

/** The scope's account, key and model conditions and `range` on `column`, as a WHERE clause. */
function where(scope: UsageScope, column: string, range: TimeRange): RawBuilder<unknown> {
  const conditions: RawBuilder<unknown>[] = [];
  if (range.from !== undefined) conditions.push(sql`${sql.ref(column)} >= ${range.from}`);
  if (range.to !== undefined) conditions.push(sql`${sql.ref(column)} < ${range.to}`);
  if (scope.accountId !== undefined) conditions.push(sql`account_id = ${scope.accountId}`);
  if (scope.keyId !== undefined) conditions.push(sql`key_id = ${scope.keyId}`);
  if (scope.model !== undefined) conditions.push(sql`model = ${scope.model}`);
  return conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, sql` AND `)}`;
}
