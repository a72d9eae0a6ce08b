/**
 * The time range and figure a usage page shows, read from its query (`range=30d`, or
 * `since`/`until` as ISO 8601; `metric=cost|requests|tokens`), and what the page loads for
 * it: the usage report, the median latency, and the chart's series stacked by model (the
 * five models with the most of the figure, the rest summed as "other").
 */
import type { AdminService } from "../admin/service.ts";
import type { LatencyJson } from "../admin/latency.ts";
import type { Bucket, UsageCounts, UsagePointJson, UsageReport } from "../admin/usage.ts";
import { optional } from "../api/admin_api_input.ts";
import type { Stack } from "./chart.tsx";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** The ranges a page offers, by name: how far back from now, and the chart's bucket. */
export const RANGES: Readonly<Record<string, { label: string; ms: number; bucket: Bucket }>> = {
  "24h": { label: "Last 24 hours", ms: DAY_MS, bucket: "hour" },
  "7d": { label: "Last 7 days", ms: 7 * DAY_MS, bucket: "day" },
  "30d": { label: "Last 30 days", ms: 30 * DAY_MS, bucket: "day" },
  "90d": { label: "Last 90 days", ms: 90 * DAY_MS, bucket: "day" },
};

/** The range shown unless the query names another. */
export const DEFAULT_RANGE = "30d";

/** What the chart stacks. */
export type Metric = "cost" | "requests" | "tokens";

/** A page's range: its bounds as the admin service takes them. */
export interface UsageRange {
  /** A name of RANGES, or "custom". */
  name: string;
  since: string;
  until: string;
  bucket: Bucket;
  metric: Metric;
}

/** The range a query asks for; custom bounds are checked by the service (400 naming them). */
export function rangeOf(query: URLSearchParams, now: number): UsageRange {
  const metricText = optional(query, "metric");
  const metric: Metric = metricText === "requests" || metricText === "tokens" ? metricText : "cost";
  const since = optional(query, "since");
  const until = optional(query, "until");
  if (since !== undefined || until !== undefined) {
    const from = since === undefined ? now - RANGES[DEFAULT_RANGE]!.ms : Date.parse(since);
    const to = until === undefined ? now : Date.parse(until);
    // Up to three days in hours, longer ranges in days.
    const bucket: Bucket = to - from <= 3 * DAY_MS ? "hour" : "day";
    return {
      name: "custom",
      since: since ?? new Date(from).toISOString(),
      until: until ?? new Date(now).toISOString(),
      bucket,
      metric,
    };
  }
  const name = optional(query, "range") ?? DEFAULT_RANGE;
  const preset = RANGES[name] ?? RANGES[DEFAULT_RANGE]!;
  return {
    name: name in RANGES ? name : DEFAULT_RANGE,
    since: new Date(now - preset.ms).toISOString(),
    until: new Date(now).toISOString(),
    bucket: preset.bucket,
    metric,
  };
}

/** Everything a usage page shows for one range. */
export interface UsageView {
  range: UsageRange;
  report: UsageReport;
  latency: LatencyJson;
  /** The chart's buckets and its series by model. */
  times: string[];
  stacks: Stack[];
}

/** How many models get a series of their own; the rest are one "other" series. */
const TOP_MODELS = 5;

/** Loads a usage page's figures over `range`, for one key's usage when `key` is given. */
export async function loadUsageView(
  service: AdminService,
  range: UsageRange,
  key?: string,
): Promise<UsageView> {
  const scope = { key, since: range.since, until: range.until };
  const [report, latency] = await Promise.all([
    service.usage({ ...scope, bucket: range.bucket }),
    service.latency(scope),
  ]);
  const byModel = new Map<string, number>();
  for (const row of report.rows) {
    byModel.set(row.model, (byModel.get(row.model) ?? 0) + figure(row, range.metric));
  }
  const models = [...byModel].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .filter(([, value]) => value > 0).map(([model]) => model);
  const top = models.slice(0, TOP_MODELS);
  const series = report.series ?? [];
  const stacks: Stack[] = [];
  for (const model of top) {
    const modelSeries = (await service.usage({ ...scope, model, bucket: range.bucket })).series ??
      [];
    stacks.push({ label: model, values: aligned(series, modelSeries, range.metric) });
  }
  if (models.length > top.length) {
    const values = series.map((point, index) =>
      figure(point, range.metric) - stacks.reduce((sum, stack) => sum + stack.values[index]!, 0)
    );
    stacks.push({ label: `${models.length - top.length} other models`, values });
  }
  return { range, report, latency, times: series.map((point) => point.t), stacks };
}

/** A bucket's or a row's figure: cost in micro-USD (whole numbers add up exactly), else counts. */
export function figure(counts: UsageCounts, metric: Metric): number {
  if (metric === "requests") return counts.requests;
  if (metric === "tokens") return counts.input_tokens + counts.output_tokens;
  return Math.round(counts.cost_usd * 1e6);
}

/** A model's figures at the buckets of the whole series (both come from the same range). */
function aligned(whole: UsagePointJson[], part: UsagePointJson[], metric: Metric): number[] {
  const byTime = new Map(part.map((point) => [point.t, figure(point, metric)]));
  return whole.map((point) => byTime.get(point.t) ?? 0);
}
