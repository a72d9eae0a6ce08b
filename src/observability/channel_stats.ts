/**
 * What this process saw of each channel since it started, for the admin API's channel
 * health: attempts, failed attempts, the median time of its recent requests and its last
 * error. Fed where the metrics are (metrics.ts): a request finishing and an attempt failing.
 */
import type { RequestRecord } from "./record.ts";

/** How many recent requests of a channel its median is taken over. */
export const LATENCY_WINDOW = 256;

/** Failure kinds that are not the channel's doing: the client left, or the gateway stops. */
const NOT_THE_CHANNELS = new Set(["client_gone", "shutdown"]);

/** One channel's figures. */
export interface ChannelStat {
  /** Upstream attempts: requests it served and attempts that failed on it. */
  requests: number;
  /** Attempts that failed on it, and served requests whose stream then failed. */
  errors: number;
  /** The median duration of its recent served requests, ms; null before the first. */
  p50Ms: number | null;
  lastError: string | null;
  /** When the last error happened, ms since the epoch. */
  lastErrorAt: number | null;
}

/** The per-channel figures of one process. */
export interface ChannelStats {
  /** A request is over: the channel that served it counts it (its failed attempts counted already). */
  requestFinished(record: RequestRecord, totalMs: number): void;
  /** An upstream attempt failed on `channel` (`message` says how, for the last error). */
  attemptFailed(channel: string, kind: string, message?: string): void;
  /** Each channel seen so far, by name. */
  read(): Map<string, ChannelStat>;
}

interface Tally {
  requests: number;
  errors: number;
  /** The last LATENCY_WINDOW durations, written round robin from `next`. */
  durations: number[];
  next: number;
  lastError: string | null;
  lastErrorAt: number | null;
}

/** Fresh figures; `now` dates the errors. */
export function createChannelStats(now: () => number = Date.now): ChannelStats {
  const tallies = new Map<string, Tally>();
  const tallyOf = (channel: string) => {
    let tally = tallies.get(channel);
    if (!tally) {
      tally = {
        requests: 0,
        errors: 0,
        durations: [],
        next: 0,
        lastError: null,
        lastErrorAt: null,
      };
      tallies.set(channel, tally);
    }
    return tally;
  };
  const failed = (tally: Tally, message: string) => {
    tally.errors++;
    tally.lastError = message;
    tally.lastErrorAt = now();
  };
  return {
    requestFinished(record, totalMs) {
      // Only a served request has a first byte; one that failed before had each of its
      // attempts counted as it failed.
      if (record.channel === undefined || record.firstByteMs === undefined) return;
      const tally = tallyOf(record.channel);
      tally.requests++;
      if (tally.durations.length < LATENCY_WINDOW) tally.durations.push(totalMs);
      else tally.durations[tally.next] = totalMs;
      tally.next = (tally.next + 1) % LATENCY_WINDOW;
      if (record.outcome === "failed") failed(tally, "The answer failed after it had started.");
    },
    attemptFailed(channel, kind, message) {
      if (NOT_THE_CHANNELS.has(kind)) return;
      const tally = tallyOf(channel);
      tally.requests++;
      failed(tally, message ?? `An attempt failed (${kind}).`);
    },
    read() {
      const figures = new Map<string, ChannelStat>();
      for (const [channel, tally] of tallies) {
        figures.set(channel, {
          requests: tally.requests,
          errors: tally.errors,
          p50Ms: median(tally.durations),
          lastError: tally.lastError,
          lastErrorAt: tally.lastErrorAt,
        });
      }
      return figures;
    },
  };
}

/** The median of `values`, rounded to whole ms; null when empty. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const value = sorted.length % 2 === 1
    ? sorted[middle]!
    : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.round(value);
}
