/**
 * What the metrics count (metrics.ts) and the exposition reads at each scrape
 * (exposition.ts): plain totals and bucket counts, no prom-client objects.
 */
import type { HistogramCounts, HistogramSeries } from "./histogram_counts.ts";

/** A channel's health as the router sees it at scrape time. */
export interface ChannelState {
  channel: string;
  /** Has a usable key and is not cooling down. */
  up: boolean;
}

/** The histogram children one finished request observes, bound once per label set. */
interface RequestHistograms {
  duration: HistogramSeries;
  firstByte: HistogramSeries;
  overhead: HistogramSeries;
}

/** Totals of one model, handed to prom-client only when scraped. */
export interface ModelTotals {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
  costMicros: number;
}

/** Requests of one label set: their count, their model's totals and their histograms. */
export interface RequestSeries {
  labels: { entry_point: string; model: string; channel: string; status: string };
  count: number;
  totals: ModelTotals;
  histograms: RequestHistograms;
}

/** Everything the metrics counted, as the exposition reads it at each scrape. */
export interface MetricsState {
  series: Map<string, RequestSeries>;
  models: Map<string, ModelTotals>;
  activeStreams: number;
  holdsInFlight: number;
  /** Failed upstream attempts by channel and kind. */
  failures: Map<string, { labels: { channel: string; kind: string }; count: number }>;
  reloads: { ok: number; failed: number };
  /** Relayed requests by cache affinity's part in them (hit, miss, none). */
  affinity: Map<string, number>;
  /** Webhook delivery attempts by result (delivered, retried, failed). */
  webhooks: Map<string, number>;
  histograms: {
    duration: HistogramCounts<"entry_point" | "model">;
    firstByte: HistogramCounts<"entry_point" | "model">;
    overhead: HistogramCounts<"entry_point">;
  };
  channels: () => ChannelState[];
}
