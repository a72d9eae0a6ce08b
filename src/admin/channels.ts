/**
 * Channel health as this process sees it: whether the router tries each channel of the
 * config now, and what the process measured of it since it started (attempts, failed
 * attempts, median latency of recent requests, last error). Each node of a shared database
 * answers for itself.
 */
import type { ChannelHealthSource } from "./deps.ts";
import type { Config } from "../config/schema.ts";

/** A channel as the admin API lists it. */
export interface ChannelJson {
  name: string;
  protocol: string;
  /**
   * `up`; `cooling` after repeated failures (tried after the others); `no_usable_key` while
   * every key is rejected or resting; `unknown` outside a serving process.
   */
  state: string;
  requests: number;
  errors: number;
  /** Median duration of its recent served requests; null before the first. */
  p50_ms: number | null;
  last_error: string | null;
  last_error_at: string | null;
}

/** Each channel of `config`, in its order, with this process's figures. */
export function channelHealth(config: Config, health?: ChannelHealthSource): ChannelJson[] {
  const states = new Map(
    (health?.router.channelStates(config) ?? []).map(({ channel, state }) => [channel, state]),
  );
  const stats = health?.stats.read() ?? new Map();
  return config.channels.map((channel) => {
    const figures = stats.get(channel.name);
    return {
      name: channel.name,
      protocol: channel.protocol,
      state: states.get(channel.name) ?? "unknown",
      requests: figures?.requests ?? 0,
      errors: figures?.errors ?? 0,
      p50_ms: figures?.p50Ms ?? null,
      last_error: figures?.lastError ?? null,
      last_error_at: figures?.lastErrorAt == null
        ? null
        : new Date(figures.lastErrorAt).toISOString(),
    };
  });
}
