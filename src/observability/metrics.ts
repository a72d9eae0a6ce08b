/**
 * The Prometheus metrics of one gateway (prom-client, on a registry of its own: no
 * process-global state). Updates are counter increments and histogram observations,
 * a fraction of a microsecond each; the exposition is rendered only when scraped.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
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

/** The metric children one finished request updates. */
interface RequestMetrics {
  requests: { inc(value?: number): void };
  duration: { observe(value: number): void };
  firstByte: { observe(value: number): void };
  overhead: { observe(value: number): void };
  input: { inc(value?: number): void };
  output: { inc(value?: number): void };
  cached: { inc(value?: number): void };
  cacheWrite: { inc(value?: number): void };
  cost: { inc(value?: number): void };
}

/** A registry with tollgate's metrics; `channels` is read at each scrape. */
export function createMetrics(channels: () => ChannelState[] = () => []): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Counter({
    name: "tollgate_requests_total",
    help: "Requests answered, by entry point, model, channel and HTTP status.",
    labelNames: ["entry_point", "model", "channel", "status"],
    registers,
  });
  const duration = new Histogram({
    name: "tollgate_request_duration_seconds",
    help: "Total time of a request, until its last byte (streams included).",
    labelNames: ["entry_point", "model"],
    buckets: SECONDS,
    registers,
  });
  const firstByte = new Histogram({
    name: "tollgate_time_to_first_byte_seconds",
    help: "Time until the answer's first byte (a stream's headers and first event).",
    labelNames: ["entry_point", "model"],
    buckets: SECONDS,
    registers,
  });
  const overhead = new Histogram({
    name: "tollgate_gateway_overhead_seconds",
    help: "Time of a request not spent waiting on the upstream.",
    labelNames: ["entry_point"],
    buckets: OVERHEAD_SECONDS,
    registers,
  });
  const tokens = new Counter({
    name: "tollgate_tokens_total",
    help: "Tokens settled, by model and kind (input counts cached and cache-write tokens too).",
    labelNames: ["model", "kind"],
    registers,
  });
  const cost = new Counter({
    name: "tollgate_cost_usd_total",
    help: "Cost settled in USD, by model.",
    labelNames: ["model"],
    registers,
  });
  const streams = new Gauge({
    name: "tollgate_active_streams",
    help: "Streams being relayed now.",
    registers,
  });
  const holds = new Gauge({
    name: "tollgate_holds_in_flight",
    help: "Holds taken and not yet settled.",
    registers,
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

  // The metric children of each label set, bound once: prom-client hashes a label object
  // on every update otherwise, and a request makes eight updates.
  const bound = new Map<string, RequestMetrics>();
  const metricsOf = (entry: string, model: string, channel: string, status: string) => {
    const key = `${entry}\u0000${model}\u0000${channel}\u0000${status}`;
    let found = bound.get(key);
    if (!found) {
      found = {
        requests: requests.labels({ entry_point: entry, model, channel, status }),
        duration: duration.labels({ entry_point: entry, model }),
        firstByte: firstByte.labels({ entry_point: entry, model }),
        overhead: overhead.labels({ entry_point: entry }),
        input: tokens.labels({ model, kind: "input" }),
        output: tokens.labels({ model, kind: "output" }),
        cached: tokens.labels({ model, kind: "cached" }),
        cacheWrite: tokens.labels({ model, kind: "cache_write" }),
        cost: cost.labels({ model }),
      };
      bound.set(key, found);
    }
    return found;
  };

  return {
    requestFinished(record, totalMs) {
      const entry = record.entry ?? "none";
      const model = record.model ?? "";
      const m = metricsOf(entry, model, record.channel ?? "", String(record.status));
      m.requests.inc();
      if (!record.entry) return;
      m.duration.observe(totalMs / 1000);
      if (record.firstByteMs !== undefined) m.firstByte.observe(record.firstByteMs / 1000);
      m.overhead.observe(Math.max(0, totalMs - record.upstreamMs) / 1000);
      const usage = record.usage;
      if (usage) {
        m.input.inc(usage.input_tokens);
        m.output.inc(usage.output_tokens);
        m.cached.inc(usage.cached_tokens);
        m.cacheWrite.inc(usage.cache_write_tokens);
      }
      if (record.costMicros) m.cost.inc(microsToUsd(record.costMicros));
    },
    streamOpened: () => streams.inc(),
    streamClosed: () => streams.dec(),
    holdTaken: () => holds.inc(),
    holdReleased: () => holds.dec(),
    attemptFailed: (channel, kind) => failures.inc({ channel, kind }),
    configReloaded: (ok) => reloads.inc({ result: ok ? "ok" : "failed" }),
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
