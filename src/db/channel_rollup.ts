/**
 * Reads of the channel rollup (migrations/014, kept at settlement: channel_rollup_rows.ts
 * on SQLite, a trigger on PostgreSQL): each channel's attempts, errors and times to first
 * byte since a time, its last error, its figures by hour.
 * The same on every node of a shared database.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";
import { type ChannelFigures, TTFB_BOUNDS_MS } from "./channel_rollup_rows.ts";

export type { ChannelFigures } from "./channel_rollup_rows.ts";

/** A channel's last error: when, the upstream's status, and its reason. */
export interface ChannelError {
  at: number;
  status: number | null;
  reason: string | null;
}

/** One bucket of a channel's series, named by its first millisecond. */
export interface ChannelPoint {
  t: number;
  attempts: number;
  ok: number;
  errors: number;
}

const BUCKETS = Array.from({ length: TTFB_BOUNDS_MS.length + 1 }, (_, i) => `ttfb_${i}`);

/** Each channel's sums over the minutes from the one holding `since` on, by name. */
export async function channelFigures(
  db: Kysely<Database>,
  since: number,
): Promise<Map<string, ChannelFigures>> {
  const { rows } = await sql<Record<string, unknown>>`
    SELECT channel, sum(attempts) AS attempts, sum(ok) AS ok, sum(errors) AS errors,
      sum(ttfb_ms) AS ttfb_ms,
      ${sql.join(BUCKETS.map((name) => sql`sum(${sql.ref(name)}) AS ${sql.ref(name)}`))},
      max(last_ok_at) AS last_ok_at, max(last_error_at) AS last_error_at
    FROM channel_rollup WHERE minute >= ${minuteOf(since)}
    GROUP BY channel`.execute(db);
  return new Map(rows.map((row) => [String(row.channel), {
    attempts: Number(row.attempts),
    ok: Number(row.ok),
    errors: Number(row.errors),
    ttfbMs: Number(row.ttfb_ms),
    ttfb: BUCKETS.map((name) => Number(row[name])),
    lastOkAt: Number(row.last_ok_at),
    lastErrorAt: Number(row.last_error_at),
  }]));
}

/** Each channel's latest error in the minutes from the one holding `since` on, by name. */
export async function lastChannelErrors(
  db: Kysely<Database>,
  since: number,
): Promise<Map<string, ChannelError>> {
  const { rows } = await sql<Record<string, unknown>>`
    SELECT channel, last_error_at, last_error_status, last_error FROM (
      SELECT channel, last_error_at, last_error_status, last_error,
        row_number() OVER (PARTITION BY channel ORDER BY last_error_at DESC) AS n
      FROM channel_rollup WHERE minute >= ${minuteOf(since)} AND last_error_at > 0
    ) latest WHERE n = 1`.execute(db);
  return new Map(rows.map((row) => [String(row.channel), {
    at: Number(row.last_error_at),
    status: row.last_error_status === null ? null : Number(row.last_error_status),
    reason: row.last_error === null ? null : String(row.last_error),
  }]));
}

/** One channel's figures by bucket of `bucketMs` from `since`'s on, oldest first; empty ones left out. */
export async function channelSeries(
  db: Kysely<Database>,
  channel: string,
  since: number,
  bucketMs: number,
): Promise<ChannelPoint[]> {
  const t = sql`minute - minute % ${sql.lit(bucketMs)}`;
  const { rows } = await sql<Record<string, unknown>>`
    SELECT ${t} AS t, sum(attempts) AS attempts, sum(ok) AS ok, sum(errors) AS errors
    FROM channel_rollup WHERE channel = ${channel} AND minute >= ${minuteOf(since)}
    GROUP BY ${t} ORDER BY ${t}`.execute(db);
  return rows.map((row) => ({
    t: Number(row.t),
    attempts: Number(row.attempts),
    ok: Number(row.ok),
    errors: Number(row.errors),
  }));
}

function minuteOf(ms: number): number {
  return ms - (ms % 60_000);
}
