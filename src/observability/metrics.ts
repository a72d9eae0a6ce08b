/**
 * The Prometheus metrics of one gateway (prom-client, on a registry of its own: no
 * process-global state). A request adds to plain totals and bucket counts; prom-client
 * renders the exposition when scraped.
 */
import { Counter, Gauge, Registry } from "prom-client";
import { CountedHistogram, type HistogramSeries } from "./counted_histogram.ts";
import { microsToUsd } from "../billing/money.ts";
import type { RequestRecord } from "./record.ts";

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const OVERHEAD_SECONDS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1];

/** A channel's health as the router sees it at scrape time. */
export interface ChannelState {
  channel: string;
  /** Has a usable key and is not cooling down. */
  up: boolean;
}

/** What the gateway reports to Prometheus. */
export interface Metrics {
  /** A request is over: counts, durations, tokens and cost. */
  requestFinished(record: RequestRecord, totalMs: number): void;
  streamOpened(): void;
  streamClosed(): void;
  holdTaken(): void;
  holdReleased(): void;
  /** An upstream attempt failed (and the request failed over or gave up). */
  attemptFailed(channel: string, kind: string): void;
  configReloaded(ok: boolean): void;
  /** The exposition in the Prometheus text format. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** The histogram children one finished request observes, bound once per label set. */
interface RequestHistograms {
  duration: HistogramSeries;
  firstByte: HistogramSeries;
  overhead: HistogramSeries;
}

/** Totals of one model, handed to prom-client only when scraped. */
interface ModelTotals {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
  costMicros: number;
}

/** Requests of one label set: their count, their model's totals and their histograms. */
interface RequestSeries {
  labels: { entry_point: string; model: string; channel: string; status: string };
  count: number;
  totals: ModelTotals;
  histograms: RequestHistograms;
}

/** A registry with tollgate's metrics; `channels` is read at each scrape. */
export function createMetrics(channels: () => ChannelState[] = () => []): Metrics {
  const registry = new Registry();
  const registers = [registry];
  // Counters and gauges are plain numbers here, handed to prom-client when scraped
  // (`collect`): each prom-client update validates and hashes its labels, and a request
  // would make ten of them; histograms count in series of their own (counted_histogram.ts).
  const series = new Map<string, RequestSeries>();
  const models = new Map<string, ModelTotals>();
  let activeStreams = 0;
  let holdsInFlight = 0;
  new Counter({
    name: "tollgate_requests_total",
    help: "Requests answered, by entry point, model, channel and HTTP status.",
    labelNames: ["entry_point", "model", "channel", "status"],
    registers,
    collect() {
      this.reset();
      for (const { labels, count } of series.values()) this.inc(labels, count);
    },
  });
  const duration = new CountedHistogram({
    name: "tollgate_request_duration_seconds",
    help: "Total time of a request, until its last byte (streams included).",
    labelNames: ["entry_point", "model"],
    buckets: SECONDS,
    registers,
  });
  const firstByte = new CountedHistogram({
    name: "tollgate_time_to_first_byte_seconds",
    help: "Time until the answer's first byte (a stream's headers and first event).",
    labelNames: ["entry_point", "model"],
    buckets: SECONDS,
    registers,
  });
  const overhead = new CountedHistogram({
    name: "tollgate_gateway_overhead_seconds",
    help: "Time of a request not spent waiting on the upstream.",
    labelNames: ["entry_point"],
    buckets: OVERHEAD_SECONDS,
    registers,
  });
  new Counter({
    name: "tollgate_tokens_total",
    help: "Tokens settled, by model and kind (input counts cached and cache-write tokens too).",
    labelNames: ["model", "kind"],
    registers,
    collect() {
      this.reset();
      for (const [model, totals] of models) {
        this.inc({ model, kind: "input" }, totals.input);
        this.inc({ model, kind: "output" }, totals.output);
        this.inc({ model, kind: "cached" }, totals.cached);
        this.inc({ model, kind: "cache_write" }, totals.cacheWrite);
      }
    },
  });
  new Counter({
    name: "tollgate_cost_usd_total",
    help: "Cost settled in USD, by model.",
    labelNames: ["model"],
    registers,
    collect() {
      this.reset();
      for (const [model, totals] of models) this.inc({ model }, microsToUsd(totals.costMicros));
    },
  });
  new Gauge({
    name: "tollgate_active_streams",
    help: "Streams being relayed now.",
    registers,
    collect() {
      this.set(activeStreams);
    },
  });
  new Gauge({
    name: "tollgate_holds_in_flight",
    help: "Holds taken and not yet settled.",
    registers,
    collect() {
      this.set(holdsInFlight);
    },
  });
  const failures = new Counter({
    name: "tollgate_upstream_failures_total",
    help:
      "Failed upstream attempts (each one failed over or ended the request), by channel and kind.",
    labelNames: ["channel", "kind"],
    registers,
  });
  new Gauge({
    name: "tollgate_channel_up",
    help: "1 when a channel has a usable key and is not cooling down, else 0.",
    labelNames: ["channel"],
    registers,
    collect() {
      this.reset();
      for (const state of channels()) this.set({ channel: state.channel }, state.up ? 1 : 0);
    },
  });
  const reloads = new Counter({
    name: "tollgate_config_reloads_total",
    help: "Config reloads, by result (ok, or failed: the previous config stayed).",
    labelNames: ["result"],
    registers,
  });

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
    streamOpened: () => void activeStreams++,
    streamClosed: () => void activeStreams--,
    holdTaken: () => void holdsInFlight++,
    holdReleased: () => void holdsInFlight--,
    attemptFailed: (channel, kind) => failures.inc({ channel, kind }),
    configReloaded: (ok) => reloads.inc({ result: ok ? "ok" : "failed" }),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
