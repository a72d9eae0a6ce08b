/**
 * Channel health: each channel of the config with its figures over the last hour and day
 * from the channel rollup kept at settlement (db/channel_rollup.ts), the same on every node
 * of a shared database, and this process's view (whether the router tries it now, its
 * cool-down, what it measured since it started). A channel is `failing` while its latest
 * attempt in the last hour failed by its own fault, on any node; `cooling` and `probing`
 * are this process's cool-down and its probe.
 */
import type { Config } from "../config/schema.ts";
import {
  type ChannelError,
  type ChannelFigures,
  channelFigures,
  channelSeries,
  lastChannelErrors,
} from "../db/channel_rollup.ts";
import { TTFB_BOUNDS_MS } from "../db/channel_rollup_rows.ts";
import type { AdminDeps, ChannelHealthSource } from "./deps.ts";
import { notFound } from "./errors.ts";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A channel as the admin API lists it (design.md), with the fields beyond it. */
export interface ChannelJson {
  name: string;
  protocol: string;
  /**
   * `up`; `failing` while its latest attempt of the last hour failed (any node's, or this
   * process's not yet settled); `cooling` after repeated failures (tried after the others);
   * `probing` while one request tries it after its cool-down; `no_usable_key` while every
   * key is rejected or resting; `unknown` outside a serving process with nothing failing.
   */
  state: string;
  /** Attempts this process sent to it since it started, and those that failed. */
  requests: number;
  errors: number;
  /** Median duration of this process's recent served requests; null before the first. */
  p50_ms: number | null;
  /** The latest error of the last day (any node's), else this process's latest. */
  last_error: string | null;
  last_error_at: string | null;
  /** The upstream's status of that error, when it answered one. */
  last_error_status: number | null;
  /** Attempts over the last hour and day (every node's), those that served and that failed. */
  requests_1h: number;
  ok_1h: number;
  errors_1h: number;
  requests_24h: number;
  ok_24h: number;
  errors_24h: number;
  /** Median time to its first byte over the last hour and day (estimated from buckets). */
  p50_ttfb_ms_1h: number | null;
  p50_ttfb_ms_24h: number | null;
  /** When an attempt last served, in the last day; null when none did. */
  last_ok_at: string | null;
  /** This process's view: `up`, `failing`, `cooling`, `probing`, `no_usable_key`, `unknown`. */
  node_state: string;
  /** When this process's cool-down of it ends (or ended, awaiting its probe); null if none. */
  cooling_until: string | null;
}

/** One hour of a channel's last day. */
export interface ChannelPointJson {
  t: string;
  requests: number;
  ok: number;
  errors: number;
}

/** A channel with its last day by hour (the dashboard's channel page). */
export interface ChannelDetailJson extends ChannelJson {
  series_24h: ChannelPointJson[];
}

/** States of a process that say more than the rollup can: it rests the channel, or has no key. */
const RESTING = new Set(["cooling", "probing", "no_usable_key"]);

const iso = (ms: number | null | undefined) => ms ? new Date(ms).toISOString() : null;

/** Each channel of the config, in its order, with its figures. */
export async function channelHealth(deps: AdminDeps): Promise<ChannelJson[]> {
  const now = deps.now();
  const db = await deps.queries();
  const [hour, day, errors] = await Promise.all([
    channelFigures(db, now - HOUR_MS),
    channelFigures(db, now - DAY_MS),
    lastChannelErrors(db, now - DAY_MS),
  ]);
  const config = deps.config();
  const node = nodeView(config, deps.health);
  return config.channels.map((channel) =>
    channelJson(channel, {
      hour: hour.get(channel.name),
      day: day.get(channel.name),
      error: errors.get(channel.name),
      node: node(channel.name),
      now,
    })
  );
}

/** One channel with its last day by hour; 404 when the config has no such channel. */
export async function channelDetail(deps: AdminDeps, name: string): Promise<ChannelDetailJson> {
  const channel = (await channelHealth(deps)).find((channel) => channel.name === name);
  if (channel === undefined) throw noSuchChannel(deps, "Reading", name);
  const now = deps.now();
  const first = now - (now % HOUR_MS) - 23 * HOUR_MS;
  const points = await channelSeries(await deps.queries(), name, first, HOUR_MS);
  const byHour = new Map(points.map((point) => [point.t, point]));
  const series_24h = Array.from({ length: 24 }, (_, i) => {
    const t = first + i * HOUR_MS;
    const point = byHour.get(t);
    return {
      t: new Date(t).toISOString(),
      requests: point?.attempts ?? 0,
      ok: point?.ok ?? 0,
      errors: point?.errors ?? 0,
    };
  });
  return { ...channel, series_24h };
}

/** The 404 of a channel the config does not have, for `action` ("Testing"). */
export function noSuchChannel(deps: AdminDeps, action: string, name: string) {
  const known = deps.config().channels.map((channel) => `"${channel.name}"`).join(", ");
  return notFound(
    `${action} channel "${name}" failed: the config has no such channel` +
      (known ? `; its channels are ${known}.` : "."),
  );
}

/** What this process knows of a channel. */
interface NodeView {
  state: string;
  coolingUntil?: number;
  requests: number;
  errors: number;
  p50Ms: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
}

/** This process's view of each channel, by name ("unknown" outside a serving process). */
function nodeView(config: Config, health?: ChannelHealthSource): (name: string) => NodeView {
  const states = new Map(
    (health?.router.channelStates(config) ?? []).map((state) => [state.channel, state]),
  );
  const stats = health?.stats.read() ?? new Map();
  return (name) => {
    const state = states.get(name);
    const figures = stats.get(name);
    return {
      state: state?.state ?? "unknown",
      coolingUntil: state?.coolingUntil,
      requests: figures?.requests ?? 0,
      errors: figures?.errors ?? 0,
      p50Ms: figures?.p50Ms ?? null,
      lastError: figures?.lastError ?? null,
      lastErrorAt: figures?.lastErrorAt ?? null,
    };
  };
}

const NONE: ChannelFigures = {
  attempts: 0,
  ok: 0,
  errors: 0,
  ttfbMs: 0,
  ttfb: [],
  lastOkAt: 0,
  lastErrorAt: 0,
};

function channelJson(
  channel: { name: string; protocol: string },
  parts: {
    hour?: ChannelFigures;
    day?: ChannelFigures;
    error?: ChannelError;
    node: NodeView;
    now: number;
  },
): ChannelJson {
  const { node, now } = parts;
  const hour = parts.hour ?? NONE;
  const day = parts.day ?? NONE;
  // This process's failure counts too while it is not settled yet (or the rollup is older).
  const nodeFailedAt = node.state === "failing" ? node.lastErrorAt ?? 0 : 0;
  const lastFailure = Math.max(hour.errors > 0 ? hour.lastErrorAt : 0, nodeFailedAt);
  const failing = lastFailure > hour.lastOkAt && lastFailure > now - HOUR_MS;
  // This process's own "failing" gives way to a later success on any node.
  const state = RESTING.has(node.state)
    ? node.state
    : failing
    ? "failing"
    : node.state === "unknown"
    ? "unknown"
    : "up";
  const shared = parts.error;
  return {
    name: channel.name,
    protocol: channel.protocol,
    state,
    requests: node.requests,
    errors: node.errors,
    p50_ms: node.p50Ms,
    last_error: shared ? shared.reason : node.lastError,
    last_error_at: iso(shared ? shared.at : node.lastErrorAt),
    last_error_status: shared?.status ?? null,
    requests_1h: hour.attempts,
    ok_1h: hour.ok,
    errors_1h: hour.errors,
    requests_24h: day.attempts,
    ok_24h: day.ok,
    errors_24h: day.errors,
    p50_ttfb_ms_1h: bucketMedian(hour.ttfb),
    p50_ttfb_ms_24h: bucketMedian(day.ttfb),
    last_ok_at: iso(day.lastOkAt),
    node_state: node.state,
    cooling_until: iso(node.coolingUntil),
  };
}

/**
 * The median of times counted in the rollup's buckets, taken as spread evenly in its
 * bucket (the open last bucket: its lower bound); null when nothing was counted.
 */
export function bucketMedian(counts: readonly number[]): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const half = total / 2;
  let before = 0;
  for (let i = 0; i < counts.length; i++) {
    const count = counts[i]!;
    if (count > 0 && before + count >= half) {
      const low = i === 0 ? 0 : TTFB_BOUNDS_MS[i - 1]!;
      const high = TTFB_BOUNDS_MS[i];
      if (high === undefined) return low;
      return Math.round(low + ((half - before) / count) * (high - low));
    }
    before += count;
  }
  return null;
}
