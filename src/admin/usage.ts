/**
 * Usage: requests, tokens and cost by account, key and model over a time range, and as a
 * series of hours or days. Totals, rows and series are exact to the millisecond asked; the
 * series buckets are hours or days (UTC). They read the rollups kept at settlement
 * (db/usage.ts), so a month over a million ledger rows answers in tens of milliseconds.
 */
import { microsToUsd } from "../billing/money.ts";
import { findAccountByName } from "../db/accounts.ts";
import { listKeys } from "../db/keys.ts";
import { DAY_MS, HOUR_MS } from "../db/rollup_rows.ts";
import {
  usageByKey,
  type UsageFigures,
  type UsagePoint,
  type UsageScope,
  usageSeries,
} from "../db/usage.ts";
import type { AdminDeps } from "./deps.ts";
import { invalidField, notFound } from "./errors.ts";
import { timeField } from "./fields.ts";

/** How long a series bucket is. */
export type Bucket = "hour" | "day";

const BUCKET_MS: Record<Bucket, number> = { hour: HOUR_MS, day: DAY_MS };

/** More buckets than this are refused: a series meant for a chart, not an export. */
export const MAX_SERIES_POINTS = 10_000;

/**
 * Which usage to sum (the CLI's flags, the admin API's query parameters): times as ISO 8601,
 * `until` exclusive; `bucket` asks for the series too.
 */
export interface UsageQuery {
  account?: string;
  key?: string;
  model?: string;
  since?: string;
  until?: string;
  bucket?: Bucket;
}

/** Sums of usage, money in USD. */
export interface UsageCounts {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  /** Requests that failed or were interrupted. */
  errors: number;
  cost_usd: number;
}

/** Usage of one account, key and model. */
export type UsageRowJson = { account: string; key_id: string; model: string } & UsageCounts;

/** Usage of one bucket, named by its start (ISO 8601). */
export type UsagePointJson = { t: string } & UsageCounts;

/** `usage --json` (design.md), with `series` when a bucket was asked for. */
export interface UsageReport {
  totals: UsageCounts;
  rows: UsageRowJson[];
  series?: UsagePointJson[];
}

/** Sums usage for `query`; 404 for an account or key that does not exist. */
export async function usageReport(deps: AdminDeps, query: UsageQuery): Promise<UsageReport> {
  const bucket = query.bucket;
  if (bucket !== undefined && !Object.hasOwn(BUCKET_MS, bucket)) {
    throw invalidField("bucket", `Invalid bucket "${bucket}": use "hour" or "day".`);
  }
  const since = query.since === undefined ? undefined : timeField("since", query.since);
  const until = query.until === undefined ? undefined : timeField("until", query.until);
  const db = await deps.queries();
  const scope: UsageScope = { keyId: query.key, model: query.model, since, until };
  if (query.account !== undefined) {
    const account = await findAccountByName(db, query.account);
    if (account === undefined) {
      throw notFound(
        `Summing usage failed: account "${query.account}" does not exist; ` +
          `see "tollgate account list".`,
      );
    }
    scope.accountId = account.id;
  }
  if (query.key !== undefined && (await listKeys(db, { id: query.key })).length === 0) {
    throw notFound(
      `Summing usage failed: key "${query.key}" does not exist; see "tollgate key list".`,
    );
  }
  const rows = await usageByKey(db, scope);
  const report: UsageReport = {
    totals: countsOf(sum(rows)),
    rows: rows.map(({ account, key_id, model, ...figures }) => ({
      account,
      key_id,
      model,
      ...countsOf(figures),
    })),
  };
  if (bucket !== undefined) {
    const bucketMs = BUCKET_MS[bucket];
    const points = await usageSeries(db, scope, bucket);
    report.series = dense(points, bucketMs, since, until ?? deps.now()).map((
      { t, ...figures },
    ) => ({
      t: new Date(t).toISOString(),
      ...countsOf(figures),
    }));
  }
  return report;
}

/**
 * Every bucket from `since`'s (else the first with usage) to the one holding `end - 1`,
 * empty ones as zeros, so that a chart's x-axis is the range asked for.
 */
function dense(
  points: UsagePoint[],
  bucketMs: number,
  since: number | undefined,
  end: number,
): UsagePoint[] {
  const first = since === undefined ? points[0]?.t : since - (since % bucketMs);
  if (first === undefined) return [];
  const lastPoint = points.at(-1)?.t ?? first;
  const last = Math.max(lastPoint, end - 1 - ((end - 1) % bucketMs));
  if ((last - first) / bucketMs + 1 > MAX_SERIES_POINTS) {
    throw invalidField(
      "since",
      `The series would have more than ${MAX_SERIES_POINTS} buckets: give a later since, ` +
        `or bucket=day.`,
    );
  }
  const byTime = new Map(points.map((point) => [point.t, point]));
  const filled: UsagePoint[] = [];
  for (let t = first; t <= last; t += bucketMs) filled.push(byTime.get(t) ?? { t, ...ZERO });
  return filled;
}

const ZERO: UsageFigures = {
  requests: 0,
  errors: 0,
  input_tokens: 0,
  output_tokens: 0,
  cached_tokens: 0,
  cache_write_tokens: 0,
  cost_micros: 0,
};

function sum(rows: readonly UsageFigures[]): UsageFigures {
  const total = { ...ZERO };
  for (const row of rows) {
    for (const name of Object.keys(total) as (keyof UsageFigures)[]) total[name] += row[name];
  }
  return total;
}

function countsOf(figures: UsageFigures): UsageCounts {
  return {
    requests: figures.requests,
    input_tokens: figures.input_tokens,
    output_tokens: figures.output_tokens,
    cached_tokens: figures.cached_tokens,
    cache_write_tokens: figures.cache_write_tokens,
    errors: figures.errors,
    cost_usd: microsToUsd(figures.cost_micros),
  };
}
