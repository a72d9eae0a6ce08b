/**
 * The Prometheus exposition of tollgate's metrics: a prom-client registry of its own,
 * whose metrics read the counted state (metrics.ts) at each scrape. Loaded by the first
 * scrape only.
 */
import { Counter, Gauge, Registry } from "prom-client";
import { microsToUsd } from "../billing/money.ts";
import { CountedHistogram } from "./counted_histogram.ts";
import type { MetricsState } from "./metrics_state.ts";

/** Renders `state` in the Prometheus text format, with its content type. */
export function exposition(
  state: MetricsState,
): () => Promise<{ text: string; contentType: string }> {
  const registry = new Registry();
  const registers = [registry];
  new Counter({
    name: "tollgate_requests_total",
    help: "Requests answered, by entry point, model, channel and HTTP status.",
    labelNames: ["entry_point", "model", "channel", "status"],
    registers,
    collect() {
      this.reset();
      for (const { labels, count } of state.series.values()) this.inc(labels, count);
    },
  });
  for (const counts of Object.values(state.histograms)) new CountedHistogram(counts, registers);
  new Counter({
    name: "tollgate_tokens_total",
    help: "Tokens settled, by model and kind (input counts cached and cache-write tokens too).",
    labelNames: ["model", "kind"],
    registers,
    collect() {
      this.reset();
      for (const [model, totals] of state.models) {
        this.inc({ model, kind: "input" }, totals.input);
        this.inc({ model, kind: "output" }, totals.output);
        this.inc({ model, kind: "cached" }, totals.cached);
        this.inc({ model, kind: "cache_write" }, totals.cacheWrite);
      }
    },
  });
  new Counter({
    name: "tollgate_affinity_total",
    help: "Relayed requests by cache affinity: hit (served by the channel key its conversation " +
      "was bound to), miss (bound, served elsewhere or not at all), none (not bound).",
    labelNames: ["result"],
    registers,
    collect() {
      this.reset();
      for (const [result, count] of state.affinity) this.inc({ result }, count);
    },
  });
  new Counter({
    name: "tollgate_webhook_deliveries_total",
    help: "Alert webhook delivery attempts, by result: delivered (a 2xx), retried (tried " +
      "again later), failed (given up after 24 hours, or its webhook is gone).",
    labelNames: ["result"],
    registers,
    collect() {
      this.reset();
      for (const [result, count] of state.webhooks) this.inc({ result }, count);
    },
  });
  new Counter({
    name: "tollgate_cost_usd_total",
    help: "Cost settled in USD, by model.",
    labelNames: ["model"],
    registers,
    collect() {
      this.reset();
      for (const [model, totals] of state.models) {
        this.inc({ model }, microsToUsd(totals.costMicros));
      }
    },
  });
  new Gauge({
    name: "tollgate_active_streams",
    help: "Streams being relayed now.",
    registers,
    collect() {
      this.set(state.activeStreams);
    },
  });
  new Gauge({
    name: "tollgate_holds_in_flight",
    help: "Holds taken and not yet settled.",
    registers,
    collect() {
      this.set(state.holdsInFlight);
    },
  });
  new Counter({
    name: "tollgate_upstream_failures_total",
    help:
      "Failed upstream attempts (each one failed over or ended the request), by channel and kind.",
    labelNames: ["channel", "kind"],
    registers,
    collect() {
      this.reset();
      for (const { labels, count } of state.failures.values()) this.inc(labels, count);
    },
  });
  new Gauge({
    name: "tollgate_channel_up",
    help: "1 when a channel has a usable key and is not cooling down, else 0.",
    labelNames: ["channel"],
    registers,
    collect() {
      this.reset();
      for (const channel of state.channels()) {
        this.set({ channel: channel.channel }, channel.up ? 1 : 0);
      }
    },
  });
  new Counter({
    name: "tollgate_config_reloads_total",
    help: "Config reloads, by result (ok, or failed: the previous config stayed).",
    labelNames: ["result"],
    registers,
    collect() {
      this.reset();
      // As a counter only ever incremented: a result appears once it happened.
      if (state.reloads.ok > 0) this.inc({ result: "ok" }, state.reloads.ok);
      if (state.reloads.failed > 0) this.inc({ result: "failed" }, state.reloads.failed);
    },
  });
  return async () => ({ text: await registry.metrics(), contentType: registry.contentType });
}
