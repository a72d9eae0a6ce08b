/**
 * The channel rollup (channel_rollup, migrations/014) of the ledger rows a SQLite batch
 * writes: each row's upstream attempts, read from its attempt log, summed in memory by
 * minute and channel, then written with the rows (ledger_rows.ts) as one upsert per few
 * minutes. PostgreSQL keeps the same table by a trigger on the ledger
 * (migrations/postgres/015), which follows the rules of `attemptFacts` below. Serving
 * processes remove minutes older than two days (`pruneChannelRollup`).
 */
import type { SqlClient, SqlStatement, SqlValue } from "./sql_client.ts";
import { inserts, insertsOf } from "./row_inserts.ts";
import type { Settle } from "./store.ts";

/** A minute in milliseconds: the rollup's bucket. */
export const MINUTE_MS = 60_000;

/** How long the minutes are kept: the last day's figures, and a day more. */
export const CHANNEL_ROLLUP_KEEP_MS = 2 * 86_400_000;

/**
 * Upper bounds (exclusive, ms) of the time-to-first-byte buckets `ttfb_0` ... `ttfb_8`;
 * `ttfb_9` counts the rest.
 */
export const TTFB_BOUNDS_MS: readonly number[] = [
  100,
  250,
  500,
  1_000,
  2_000,
  4_000,
  8_000,
  16_000,
  32_000,
];

/** A failed attempt's reason is kept to this many characters. */
export const REASON_CHARS = 500;

/** Statuses of an upstream answer that are the client's fault (design.md's error catalogue). */
const CLIENT_FAULTS = new Set([400, 404, 413, 422]);
/** Failures that are nobody's fault but the client's or the gateway's: it left, or stopped. */
const NOT_THE_CHANNELS = new Set(["client_gone", "shutdown"]);

/** What an attempt log's entry holds that the rollup reads (billing/attempt_record.ts). */
interface LoggedAttempt {
  channel?: unknown;
  outcome?: unknown;
  status?: unknown;
  reason?: unknown;
  kind?: unknown;
  ttfbMs?: unknown;
}

/** How one attempt counts for its channel. */
export interface AttemptFacts {
  channel: string;
  /** It served (its outcome is `ok`). */
  ok: boolean;
  /** It failed by the channel's fault (see the migration's comment). */
  error: boolean;
  ttfbMs?: number;
  status?: number;
  reason?: string;
}

/** The facts of each attempt of a ledger row's attempt log (JSON); none for a row without. */
export function attemptFacts(log: string | null | undefined): AttemptFacts[] {
  if (!log) return [];
  const entries: unknown = JSON.parse(log);
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: LoggedAttempt) => {
    if (typeof entry?.channel !== "string") return [];
    const status = typeof entry.status === "number" ? entry.status : undefined;
    const failed = entry.outcome === "failed" || entry.outcome === "cut";
    return [{
      channel: entry.channel,
      ok: entry.outcome === "ok",
      error: failed && !NOT_THE_CHANNELS.has(String(entry.kind)) &&
        !(status !== undefined && CLIENT_FAULTS.has(status)),
      ttfbMs: typeof entry.ttfbMs === "number" ? Math.round(entry.ttfbMs) : undefined,
      status,
      reason: typeof entry.reason === "string" ? entry.reason.slice(0, REASON_CHARS) : undefined,
    }];
  });
}

/** The index of the bucket of a time to first byte. */
export function ttfbBucket(ms: number): number {
  const index = TTFB_BOUNDS_MS.findIndex((bound) => ms < bound);
  return index < 0 ? TTFB_BOUNDS_MS.length : index;
}

/** A channel's sums over a range of minutes (one minute's, or a read's). */
export interface ChannelFigures {
  attempts: number;
  ok: number;
  errors: number;
  /** The times to first byte summed, and counted by bucket (TTFB_BOUNDS_MS). */
  ttfbMs: number;
  ttfb: number[];
  /** The latest served and failed attempts' times, ms since the epoch; 0 when none. */
  lastOkAt: number;
  lastErrorAt: number;
}

/** One minute and channel's figures, with its last error, in the upsert's column order. */
interface MinuteRow extends ChannelFigures {
  lastErrorStatus: number | null;
  lastError: string | null;
}

const COLUMNS = `minute, channel, attempts, ok, errors, ttfb_ms, ` +
  TTFB_BOUNDS_MS.map((_, i) => `ttfb_${i}, `).join("") + `ttfb_${TTFB_BOUNDS_MS.length}, ` +
  "last_ok_at, last_error_at, last_error_status, last_error";

const COUNTS = ["attempts", "ok", "errors", "ttfb_ms"].concat(
  Array.from({ length: TTFB_BOUNDS_MS.length + 1 }, (_, i) => `ttfb_${i}`),
);

/** A later error (or one as late) replaces a minute's last error. */
const LATER_ERROR = "excluded.last_error_at > 0 AND excluded.last_error_at >= last_error_at";

const UPSERT = insertsOf("channel_rollup", COLUMNS).map((insert) =>
  `${insert} ON CONFLICT (minute, channel) DO UPDATE SET ` +
  COUNTS.map((name) => `${name} = ${name} + excluded.${name}`).join(", ") +
  ", last_ok_at = max(last_ok_at, excluded.last_ok_at)" +
  `, last_error_status = CASE WHEN ${LATER_ERROR} THEN excluded.last_error_status ` +
  "ELSE last_error_status END" +
  `, last_error = CASE WHEN ${LATER_ERROR} THEN excluded.last_error ELSE last_error END` +
  ", last_error_at = max(last_error_at, excluded.last_error_at)"
);

/** A batch's channel rollup rows, written by `writes`. */
export class ChannelRollups {
  /** Figures by minute, then channel. */
  readonly #minutes = new Map<number, Map<string, MinuteRow>>();

  /** Adds the attempts of `s`'s ledger row to their minute's rows. */
  add(s: Settle): void {
    if (!s.attemptLog) return;
    const minute = s.createdAt - (s.createdAt % MINUTE_MS);
    let channels = this.#minutes.get(minute);
    if (channels === undefined) this.#minutes.set(minute, channels = new Map());
    for (const facts of attemptFacts(s.attemptLog)) {
      let row = channels.get(facts.channel);
      if (row === undefined) channels.set(facts.channel, row = emptyRow());
      row.attempts++;
      if (facts.ok) {
        row.ok++;
        row.lastOkAt = Math.max(row.lastOkAt, s.createdAt);
      }
      // A later attempt's error (of a later row, or later in this one) is the last.
      if (facts.error) {
        row.errors++;
        if (s.createdAt >= row.lastErrorAt) {
          row.lastErrorAt = s.createdAt;
          row.lastErrorStatus = facts.status ?? null;
          row.lastError = facts.reason ?? null;
        }
      }
      if (facts.ttfbMs !== undefined) {
        row.ttfbMs += facts.ttfbMs;
        row.ttfb[ttfbBucket(facts.ttfbMs)]!++;
      }
    }
  }

  /** The upserts of the batch's rows (none when it had no attempts). */
  writes(): SqlStatement[] {
    const rows: SqlValue[][] = [];
    for (const [minute, channels] of this.#minutes) {
      for (const [channel, row] of channels) {
        rows.push([
          minute,
          channel,
          row.attempts,
          row.ok,
          row.errors,
          row.ttfbMs,
          ...row.ttfb,
          row.lastOkAt,
          row.lastErrorAt,
          row.lastErrorStatus,
          row.lastError,
        ]);
      }
    }
    return inserts(UPSERT, rows);
  }
}

function emptyRow(): MinuteRow {
  return {
    attempts: 0,
    ok: 0,
    errors: 0,
    ttfbMs: 0,
    ttfb: Array(TTFB_BOUNDS_MS.length + 1).fill(0),
    lastOkAt: 0,
    lastErrorAt: 0,
    lastErrorStatus: null,
    lastError: null,
  };
}

/** Removes the minutes before `before` (a serving process does, now and then). */
export async function pruneChannelRollup(client: SqlClient, before: number): Promise<void> {
  await client.execute({ sql: "DELETE FROM channel_rollup WHERE minute < ?", args: [before] });
}
