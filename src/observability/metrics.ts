/**
 * The Prometheus metrics of one gateway. A request adds to plain totals and bucket
 * counts here; prom-client renders them when scraped (exposition.ts, loaded by the first
 * scrape: a gateway nobody scrapes never loads it). No process-global state.
 */
import { type ChannelStats, createChannelStats } from "./channel_stats.ts";
import { HistogramCounts } from "./histogram_counts.ts";
import type { ChannelState, MetricsState } from "./metrics_state.ts";
import type { RequestRecord } from "./record.ts";

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const OVERHEAD_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1];

/** What the gateway reports to Prometheus. */
export interface Metrics {
  /** A request is over: counts, durations, tokens and cost. */
  requestFinished(record: RequestRecord, totalMs: number): void;
  streamOpened(): void;
  streamClosed(): void;
  holdTaken(): void;
  holdReleased(): void;
  /**
   * An upstream attempt failed (and the request failed over or gave up); `message` says
   * how, for the channel's last error.
   */
  attemptFailed(channel: string, kind: string, message?: string): void;
  /** Each channel's attempts, errors and latency, for the admin API (not exported to Prometheus). */
  readonly channels: ChannelStats;
  configReloaded(ok: boolean): void;
  /** A webhook delivery's attempt: `delivered`, `retried` (to be tried again) or `failed`. */
  webhookDelivery(result: string): void;
  /** The exposition in the Prometheus text format, and its content type. */
  render(): Promise<{ text: string; contentType: string }>;
}

/** tollgate's metrics; `channels` is read at each scrape. */
export function createMetrics(
  channels: () => ChannelState[] = () => [],
  channelStats: ChannelStats = createChannelStats(),
): Metrics {
  const state: MetricsState = {
    series: new Map(),
    models: new Map(),
    activeStreams: 0,
    holdsInFlight: 0,
    failures: new Map(),
    reloads: { ok: 0, failed: 0 },
    affinity: new Map(),
    webhooks: new Map(),
    histograms: {
      duration: new HistogramCounts({
        name: "tollgate_request_duration_seconds",
        help: "Total time of a request, until its last byte (streams included).",
        labelNames: ["entry_point", "model"],
        buckets: SECONDS,
      }),
      firstByte: new HistogramCounts({
        name: "tollgate_time_to_first_byte_seconds",
        help: "Time until the answer's first byte (a stream's headers and first event).",
        labelNames: ["entry_point", "model"],
        buckets: SECONDS,
      }),
      overhead: new HistogramCounts({
        name: "tollgate_gateway_overhead_seconds",
        help: "Time of a request not spent waiting on the upstream.",
        labelNames: ["entry_point"],
        buckets: OVERHEAD_SECONDS,
      }),
    },
    channels,
  };
  const { series, models, histograms: { duration, firstByte, overhead } } = state;
  // Built by the first scrape, which loads prom-client.
  let exposed: (() => Promise<{ text: string; contentType: string }>) | undefined;

  const totalsOf = (model: string) => {
    let totals = models.get(model);
    if (!totals) {
      totals = { input: 0, output: 0, cached: 0, cacheWrite: 0, costMicros: 0 };
      models.set(model, totals);
    }
    return totals;
  };
  const seriesOf = (entry_point: string, model: string, channel: string, status: string) => {
    const key = `${entry_point}\u0000${model}\u0000${channel}\u0000${status}`;
    let found = series.get(key);
    if (!found) {
      found = {
        labels: { entry_point, model, channel, status },
        count: 0,
        totals: totalsOf(model),
        // Several request series (channels, statuses) share one histogram series.
        histograms: {
          duration: duration.series({ entry_point, model }),
          firstByte: firstByte.series({ entry_point, model }),
          overhead: overhead.series({ entry_point }),
        },
      };
      series.set(key, found);
    }
    return found;
  };

  return {
    requestFinished(record, totalMs) {
      const entry = record.entry ?? "none";
      const found = seriesOf(
        entry,
        record.model ?? "",
        record.channel ?? "",
        String(record.status),
      );
      found.count++;
      if (!record.entry) return;
      if (record.affinity) {
        state.affinity.set(record.affinity, (state.affinity.get(record.affinity) ?? 0) + 1);
      }
      const { histograms, totals } = found;
      histograms.duration.observe(totalMs / 1000);
      if (record.firstByteMs !== undefined) histograms.firstByte.observe(record.firstByteMs / 1000);
      histograms.overhead.observe(Math.max(0, totalMs - record.upstreamMs) / 1000);
      const usage = record.usage;
      if (usage) {
        totals.input += usage.input_tokens;
        totals.output += usage.output_tokens;
        totals.cached += usage.cached_tokens;
        totals.cacheWrite += usage.cache_write_tokens;
      }
      totals.costMicros += record.costMicros ?? 0;
    },
    streamOpened: () => void state.activeStreams++,
    streamClosed: () => void state.activeStreams--,
    holdTaken: () => void state.holdsInFlight++,
    holdReleased: () => void state.holdsInFlight--,
    channels: channelStats,
    attemptFailed(channel, kind, message) {
      channelStats.attemptFailed(channel, kind, message);
      const key = `${channel}\u0000${kind}`;
      const found = state.failures.get(key);
      if (found) found.count++;
      else state.failures.set(key, { labels: { channel, kind }, count: 1 });
    },
    configReloaded: (ok) => void (ok ? state.reloads.ok++ : state.reloads.failed++),
    webhookDelivery(result) {
      state.webhooks.set(result, (state.webhooks.get(result) ?? 0) + 1);
    },
    async render() {
      exposed ??= (await import("./exposition.ts")).exposition(state);
      return await exposed();
    },
  };
}
