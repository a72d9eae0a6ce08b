/**
 * The time range and figure a usage page shows, read from its query, in the viewer's time
 * zone (time_zone.ts): a preset (`range=today|yesterday|week|month|24h|7d|30d|90d`), chosen
 * local dates (`from`, `to`, both days included), or exact `since`/`until` (ISO 8601, as
 * the admin API takes them); `metric=cost|requests|tokens`. And what the page loads for it:
 * the usage report, the median latency, and the chart's series by hour or by local day,
 * stacked by model (the five models with the most of the figure, the rest as "other").
 */
import type { AdminService } from "../admin/service.ts";
import type { LatencyJson } from "../admin/latency.ts";
import { parseIsoTime } from "../admin/fields.ts";
import type { Bucket, UsageCounts, UsagePointJson, UsageReport } from "../admin/usage.ts";
import { optional } from "../api/admin_api_input.ts";
import type { Stack } from "./chart.tsx";
import type { TimeZone } from "./time_zone.ts";

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** The ranges a page offers, by name, in the picker's order. */
export const RANGES: Readonly<Record<string, string>> = {
  today: "Today",
  yesterday: "Yesterday",
  week: "This week",
  month: "This month",
  "24h": "Last 24 hours",
  "7d": "Last 7 days",
  "30d": "Last 30 days",
  "90d": "Last 90 days",
};

/** The range shown unless the query names another. */
export const DEFAULT_RANGE = "30d";

/** What the chart stacks. */
export type Metric = "cost" | "requests" | "tokens";

/** A page's range: its bounds (ms, `until` exclusive), as the admin service takes them too. */
export interface UsageRange {
  /** A name of RANGES, or "custom". */
  name: string;
  since: number;
  until: number;
  /** The chart's buckets: hours, or the zone's days. */
  bucket: Bucket;
  metric: Metric;
  zone: TimeZone;
}

/** The range a query asks for; a bad one falls back to the default, with why. */
export function rangeOf(
  query: URLSearchParams,
  now: number,
  zone: TimeZone,
): { range: UsageRange; error?: string } {
  const metricText = optional(query, "metric");
  const metric: Metric = metricText === "requests" || metricText === "tokens" ? metricText : "cost";
  const make = (name: string, since: number, until: number): UsageRange => ({
    name,
    since,
    until,
    // Up to two days (and a daylight-saving hour) in hours, longer ranges in days.
    bucket: until - since <= 2 * DAY_MS + HOUR_MS ? "hour" : "day",
    metric,
    zone,
  });
  const preset = (name: string) => {
    const [since, until] = presetBounds(name, now, zone);
    return make(name, since, until);
  };
  const from = optional(query, "from");
  const to = optional(query, "to");
  if (from !== undefined || to !== undefined) {
    const first = from === undefined ? zone.startOfDay(now) : zone.parseDate(from);
    const last = to === undefined ? zone.startOfDay(now) : zone.parseDate(to);
    if (first === undefined || last === undefined) {
      return {
        range: preset(DEFAULT_RANGE),
        error: `Invalid date "${first ? to : from}": ` +
          'pick a day, or write it as "2030-01-31".',
      };
    }
    if (last < first) {
      return {
        range: preset(DEFAULT_RANGE),
        error: "The range ends before it starts: pick a last day on or after the first.",
      };
    }
    // Days still to come hold nothing yet: the range ends now (or is empty).
    const end = Math.max(first, Math.min(now, zone.startOfDay(last, 1)));
    return { range: make("custom", first, end) };
  }
  const since = optional(query, "since");
  const until = optional(query, "until");
  if (since !== undefined || until !== undefined) {
    const start = since === undefined ? now - 30 * DAY_MS : parseIsoTime(since);
    const end = until === undefined ? now : parseIsoTime(until);
    if (start === undefined || end === undefined) {
      return {
        range: preset(DEFAULT_RANGE),
        error: `Invalid ${start === undefined ? "since" : "until"} "${
          start === undefined ? since : until
        }": give an ISO 8601 time such as "2030-01-31" or "2030-01-31T12:00:00Z".`,
      };
    }
    return { range: make("custom", start, end) };
  }
  const name = optional(query, "range") ?? DEFAULT_RANGE;
  return { range: preset(name in RANGES ? name : DEFAULT_RANGE) };
}

/** The bounds of a preset range at `now` in `zone`. */
function presetBounds(name: string, now: number, zone: TimeZone): [number, number] {
  switch (name) {
    case "today":
      return [zone.startOfDay(now), now];
    case "yesterday":
      return [zone.startOfDay(now, -1), zone.startOfDay(now)];
    case "week":
      return [zone.startOfWeek(now), now];
    case "month":
      return [zone.startOfMonth(now), now];
    case "24h":
      return [now - DAY_MS, now];
    case "7d":
      return [now - 7 * DAY_MS, now];
    case "90d":
      return [now - 90 * DAY_MS, now];
    default:
      return [now - 30 * DAY_MS, now];
  }
}

/** Which usage a page shows: the whole gateway's, or one key's, account's or model's. */
export interface UsageScope {
  key?: string;
  account?: string;
  model?: string;
}

/** Everything a usage page shows for one range. */
export interface UsageView {
  range: UsageRange;
  scope: UsageScope;
  report: UsageReport;
  latency: LatencyJson;
  /** Requests refused over the range (no ledger row: not among the report's requests). */
  refused: number;
  /** The chart's buckets (their first millisecond) and its series by model. */
  times: number[];
  stacks: Stack[];
}

/** How many models get a series of their own; the rest are one "other" series. */
const TOP_MODELS = 5;

/** Loads a usage page's figures over `range`, for the usage of `scope`. */
export async function loadUsageView(
  service: AdminService,
  range: UsageRange,
  scope: UsageScope = {},
): Promise<UsageView> {
  const query = {
    ...scope,
    since: new Date(range.since).toISOString(),
    until: new Date(range.until).toISOString(),
  };
  // The rollups' days are UTC's: another zone's days are summed from its hours.
  const bucket: Bucket = range.bucket === "day" && range.zone.isUtc ? "day" : "hour";
  const [report, latency, refused] = await Promise.all([
    service.usage({ ...query, bucket }),
    service.latency(query),
    service.refused(query),
  ]);
  const byModel = new Map<string, number>();
  for (const row of report.rows) {
    byModel.set(row.model, (byModel.get(row.model) ?? 0) + figure(row, range.metric));
  }
  const models = [...byModel].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .filter(([, value]) => value > 0).map(([model]) => model);
  const top = models.slice(0, TOP_MODELS);
  const bucketOf = (t: number) => range.bucket === "day" ? range.zone.startOfDay(t) : t;
  const whole = folded(report.series ?? [], range.metric, bucketOf);
  const times = [...whole.keys()];
  const stacks: Stack[] = [];
  // Top models' series, one call each (a scope's model is its only one).
  const series = await Promise.all(
    top.map((model) =>
      scope.model === model
        ? Promise.resolve(report.series ?? [])
        : service.usage({ ...query, model, bucket }).then((part) => part.series ?? [])
    ),
  );
  top.forEach((model, index) => {
    const values = folded(series[index]!, range.metric, bucketOf);
    stacks.push({ label: model, values: times.map((t) => values.get(t) ?? 0) });
  });
  if (models.length > top.length) {
    const values = times.map((t, index) =>
      whole.get(t)! - stacks.reduce((sum, stack) => sum + stack.values[index]!, 0)
    );
    stacks.push({ label: `${models.length - top.length} other models`, values });
  }
  return { range, scope, report, latency, refused, times, stacks };
}

/** A bucket's or a row's figure: cost in micro-USD (whole numbers add up exactly), else counts. */
export function figure(counts: UsageCounts, metric: Metric): number {
  if (metric === "requests") return counts.requests;
  if (metric === "tokens") return counts.input_tokens + counts.output_tokens;
  return Math.round(counts.cost_usd * 1e6);
}

/** A series' figures summed into the buckets `bucketOf` puts their points in, in order. */
function folded(
  points: readonly UsagePointJson[],
  metric: Metric,
  bucketOf: (t: number) => number,
): Map<number, number> {
  const sums = new Map<number, number>();
  for (const point of points) {
    const t = bucketOf(Date.parse(point.t));
    sums.set(t, (sums.get(t) ?? 0) + figure(point, metric));
  }
  return sums;
}
