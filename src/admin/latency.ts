/**
 * How long requests took over a range, for the dashboard's overview: the median of the
 * newest requests that ended `ok` in it. The ledger keeps each request's duration but no
 * rollup does, so the median is taken over a bounded sample, the newest first, which keeps
 * a month of a busy gateway one indexed read.
 */
import { findAccountByName } from "../db/accounts.ts";
import { recentDurations } from "../db/ledger.ts";
import { median } from "../observability/channel_stats.ts";
import type { AdminDeps } from "./deps.ts";
import { timeField } from "./fields.ts";
import type { UsageQuery } from "./usage.ts";

/** The median is taken over at most this many requests, the newest in the range. */
export const LATENCY_SAMPLE = 10_000;

/** The median duration of a range's requests. */
export interface LatencyJson {
  /** Milliseconds; null when no request of the range ended `ok`. */
  p50_ms: number | null;
  /** How many requests it was taken over (at most LATENCY_SAMPLE). */
  sample: number;
}

/** The median duration of the requests `query` selects (its bucket is ignored). */
export async function latencyReport(deps: AdminDeps, query: UsageQuery): Promise<LatencyJson> {
  const since = query.since === undefined ? undefined : timeField("since", query.since);
  const until = query.until === undefined ? undefined : timeField("until", query.until);
  const db = await deps.queries();
  const accountId = query.account === undefined
    ? undefined
    : (await findAccountByName(db, query.account))?.id ?? 0;
  const durations = await recentDurations(db, {
    accountId,
    keyId: query.key,
    model: query.model,
    since,
    until,
  }, LATENCY_SAMPLE);
  return { p50_ms: median(durations), sample: durations.length };
}
