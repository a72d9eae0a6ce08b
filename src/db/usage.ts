/**
 * Usage over a time range, summed by account, key and model or by time bucket. The whole
 * hours of the range come from the hourly rollups (usage_rollups, kept with the ledger
 * rows in their transaction), the partial hours at its edges from the ledger itself, so a
 * sum over months reads a few thousand rows and is still exact to the millisecond asked.
 */
import { type Kysely, type RawBuilder, sql } from "kysely";
import { HOUR_MS } from "./rollup_rows.ts";
import type { Database } from "./schema.ts";

/** Which usage to sum; times are ms since the epoch, `until` exclusive. */
export interface UsageScope {
  accountId?: number;
  keyId?: string;
  model?: string;
  since?: number;
  until?: number;
}

/** What a range of usage sums to. */
export interface UsageFigures {
  requests: number;
  /** Requests whose ledger status is `failed` or `interrupted`. */
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cost_micros: number;
}

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

/** Where a scope's range is read: whole hours from the rollups, the rest from the ledger. */
export interface RangeSplit {
  /** The whole hours (bounds on hour starts); undefined when the range holds none. */
  rollups?: TimeRange;
  /** Partial hours at the edges, read from the ledger. */
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

/** Splits [since, until) into the rollups' whole hours and the ledger's partial edges. */
export function splitRange(since?: number, until?: number): RangeSplit {
  const from = since === undefined ? undefined : Math.ceil(since / HOUR_MS) * HOUR_MS;
  const to = until === undefined ? undefined : Math.floor(until / HOUR_MS) * HOUR_MS;
  if (since !== undefined && until !== undefined && (from! > to! || since >= until)) {
    // Inside one hour (or empty): the ledger alone.
    return { ledger: since < until ? [{ from: since, to: until }] : [] };
  }
  const ledger: Required<TimeRange>[] = [];
  if (since !== undefined && since < from!) ledger.push({ from: since, to: from! });
  if (until !== undefined && to! < until) ledger.push({ from: to!, to: until });
  return from === to && from !== undefined ? { ledger } : { rollups: { from, to }, ledger };
}

/** Sums usage by account, key and model, largest cost first. */
export async function usageByKey(db: Kysely<Database>, scope: UsageScope): Promise<UsageRow[]> {
  const { rows } = await sql<Record<string, unknown>>`
    SELECT a.name AS account, u.key_id, u.model, ${sums()}
    FROM (${usageRows(scope)}) u JOIN accounts a ON a.id = u.account_id
    GROUP BY u.account_id, a.name, u.key_id, u.model
    ORDER BY cost_micros DESC, requests DESC, a.name, u.key_id, u.model`.execute(db);
  return rows.map((row) => ({
    account: String(row.account),
    key_id: String(row.key_id),
    model: String(row.model),
    ...figuresOf(row),
  }));
}

/** Sums usage by time bucket (`bucketMs` a whole number of hours), oldest first; empty buckets left out. */
export async function usageSeries(
  db: Kysely<Database>,
  scope: UsageScope,
  bucketMs: number,
): Promise<UsagePoint[]> {
  const { rows } = await sql<Record<string, unknown>>`
    SELECT u.hour - u.hour % ${sql.lit(bucketMs)} AS t, ${sums()}
    FROM (${usageRows(scope)}) u
    GROUP BY u.hour - u.hour % ${sql.lit(bucketMs)}
    ORDER BY t`.execute(db);
  return rows.map((row) => ({ t: Number(row.t), ...figuresOf(row) }));
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

/**
 * The scope's usage as rows of (hour, account, key, model, FIGURES): the rollups of its
 * whole hours, then its edge hours' ledger rows, one a request.
 */
function usageRows(scope: UsageScope): RawBuilder<unknown> {
  const split = splitRange(scope.since, scope.until);
  const parts: RawBuilder<unknown>[] = [];
  if (split.rollups) {
    const where = [...filters(scope)];
    if (split.rollups.from !== undefined) where.push(sql`hour >= ${split.rollups.from}`);
    if (split.rollups.to !== undefined) where.push(sql`hour < ${split.rollups.to}`);
    parts.push(sql`
      SELECT hour, account_id, key_id, model, ${sql.join(FIGURES.map((name) => sql.ref(name)))}
      FROM usage_rollups ${whereOf(where)}`);
  }
  if (split.ledger.length > 0) {
    const ranges = split.ledger.map(({ from, to }) =>
      sql`(created_at >= ${from} AND created_at < ${to})`
    );
    parts.push(sql`
      SELECT created_at - created_at % ${sql.lit(HOUR_MS)} AS hour, account_id, key_id, model,
        1 AS requests,
        CASE WHEN status IN ('failed', 'interrupted') THEN 1 ELSE 0 END AS errors,
        input_tokens, output_tokens, cached_tokens, cache_write_tokens, cost_micros
      FROM ledger ${whereOf([...filters(scope), sql`(${sql.join(ranges, sql` OR `)})`])}`);
  }
  // A range with neither (an empty one) has no rows.
  if (parts.length === 0) {
    return sql`SELECT hour, account_id, key_id, model, ${
      sql.join(FIGURES.map((name) => sql.ref(name)))
    } FROM usage_rollups WHERE 1 = 0`;
  }
  return sql.join(parts, sql` UNION ALL `);
}

/** The scope's account, key and model conditions, on columns both tables share. */
function filters(scope: UsageScope): RawBuilder<unknown>[] {
  const where: RawBuilder<unknown>[] = [];
  if (scope.accountId !== undefined) where.push(sql`account_id = ${scope.accountId}`);
  if (scope.keyId !== undefined) where.push(sql`key_id = ${scope.keyId}`);
  if (scope.model !== undefined) where.push(sql`model = ${scope.model}`);
  return where;
}

function whereOf(conditions: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return conditions.length === 0 ? sql`` : sql`WHERE ${sql.join(conditions, sql` AND `)}`;
}
