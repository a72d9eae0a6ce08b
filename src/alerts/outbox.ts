/**
 * The alerts' outbox in the database (migrations/012_budgets.sql), in plain SQL for both
 * dialects: events not yet given their deliveries, deliveries claimed one node at a time
 * (a lease; on PostgreSQL `FOR UPDATE SKIP LOCKED`, so nodes claiming at once take
 * different rows without waiting), their outcomes, the events of timers and channel
 * incidents (made once by a `dedupe` key, whichever node makes them), and the listing.
 */
import { type AlertRow, alertValues, newEventId } from "../db/alert_rows.ts";
import { placeholders, type SqlClient } from "../db/sql_client.ts";

/** An event as stored. */
export interface StoredEvent {
  id: string;
  type: string;
  scope: string | null;
  thresholdPpm: number | null;
  createdAt: number;
  facts: Record<string, unknown>;
  data: Record<string, unknown> | null;
}

/** A delivery a node claimed, with its event. */
export interface ClaimedDelivery {
  event: StoredEvent;
  webhook: string;
  /** Attempts made before this one. */
  attempts: number;
}

/** A delivery as `alerts list` shows it. */
export interface DeliveryRow {
  eventId: string;
  webhook: string;
  status: string;
  attempts: number;
  lastError: string | null;
  deliveredAt: number | null;
  nextAt: number;
}

/** How long a channel's incident is quiet after an event: one event at most per 10 minutes. */
export const INCIDENT_QUIET_MS = 600_000;

/** The outbox over `client`. */
export type Outbox = ReturnType<typeof createOutbox>;

/** Builds the outbox's statements for `dialect`. */
export function createOutbox(client: SqlClient, dialect: "sqlite" | "postgres") {
  const newId = dialect === "postgres"
    ? "'evt_' || replace(gen_random_uuid()::TEXT, '-', '')"
    : "'evt_' || lower(hex(randomblob(16)))";
  const skipLocked = dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
  const eventOf = (row: Record<string, unknown>): StoredEvent => ({
    id: String(row.id),
    type: String(row.type),
    scope: row.scope === null ? null : String(row.scope),
    thresholdPpm: row.threshold_ppm === null ? null : Number(row.threshold_ppm),
    createdAt: Number(row.created_at),
    facts: JSON.parse(String(row.facts)),
    data: row.data === null || row.data === undefined ? null : JSON.parse(String(row.data)),
  });
  return {
    /** Writes an event (a second one of the same `dedupe` is dropped). */
    async add(row: AlertRow): Promise<void> {
      await client.execute({
        sql: `INSERT INTO alert_events (id, type, scope, threshold_ppm, created_at, facts, dedupe)
          VALUES (${placeholders(7)}) ON CONFLICT DO NOTHING`,
        args: alertValues(row),
      });
    },

    /** Events not yet given their deliveries, oldest first. */
    async unexpanded(limit = 50): Promise<StoredEvent[]> {
      const { rows } = await client.execute({
        sql: `SELECT * FROM alert_events WHERE expanded = 0 ORDER BY created_at LIMIT ?`,
        args: [limit],
      });
      return rows.map(eventOf);
    },

    /**
     * Gives an event its data and one pending delivery per webhook, in one transaction; a
     * node doing it at the same moment writes the same rows (none twice).
     */
    async expand(id: string, data: unknown, webhooks: readonly string[], at: number) {
      await client.batch([
        {
          sql: "UPDATE alert_events SET data = ?, expanded = 1 WHERE id = ?",
          args: [JSON.stringify(data), id],
        },
        ...webhooks.map((webhook) => ({
          sql: `INSERT INTO alert_deliveries (event_id, webhook, next_at) VALUES (?, ?, ?)
            ON CONFLICT DO NOTHING`,
          args: [id, webhook, at],
        })),
      ]);
    },

    /**
     * Claims up to `limit` deliveries due at `now` for `leaseMs`: pending, and not claimed
     * by a node still holding its lease (a node that died leaves its claims to others at
     * once, when it is gone from `instances`).
     */
    async claim(
      now: number,
      leaseMs: number,
      instance: string | null,
      limit: number,
      only?: { eventId: string },
    ): Promise<ClaimedDelivery[]> {
      const filter = only ? " AND event_id = ?" : "";
      const { rows } = await client.execute({
        sql: `UPDATE alert_deliveries SET claimed_until = ?, claimed_by = ?
          WHERE (event_id, webhook) IN (
            SELECT event_id, webhook FROM alert_deliveries
            WHERE status = 'pending' AND next_at <= ?${filter} AND (claimed_until <= ?
              OR (claimed_by IS NOT NULL AND claimed_by NOT IN (SELECT id FROM instances)))
            ORDER BY next_at LIMIT ?${skipLocked})
          RETURNING event_id, webhook, attempts`,
        args: [
          now + leaseMs,
          instance,
          now,
          ...(only ? [only.eventId] : []),
          now,
          limit,
        ],
      });
      if (rows.length === 0) return [];
      const ids = [...new Set(rows.map((row) => String(row.event_id)))];
      const events = await client.execute({
        sql: `SELECT * FROM alert_events WHERE id IN (${placeholders(ids.length)})`,
        args: ids,
      });
      const byId = new Map(events.rows.map((row) => [String(row.id), eventOf(row)]));
      return rows.map((row) => ({
        event: byId.get(String(row.event_id))!,
        webhook: String(row.webhook),
        attempts: Number(row.attempts),
      }));
    },

    /** A delivery answered 2xx. */
    async delivered(eventId: string, webhook: string, at: number): Promise<void> {
      await client.execute({
        sql: `UPDATE alert_deliveries SET status = 'delivered', attempts = attempts + 1,
          delivered_at = ?, last_error = NULL, claimed_until = 0, claimed_by = NULL
          WHERE event_id = ? AND webhook = ?`,
        args: [at, eventId, webhook],
      });
    },

    /** A delivery's attempt failed: tried again at `nextAt`, or failed for good (null). */
    async attemptFailed(
      eventId: string,
      webhook: string,
      error: string,
      nextAt: number | null,
    ): Promise<void> {
      await client.execute({
        sql: `UPDATE alert_deliveries SET attempts = attempts + 1, last_error = ?,
          status = ?, next_at = ?, claimed_until = 0, claimed_by = NULL
          WHERE event_id = ? AND webhook = ?`,
        args: [error, nextAt === null ? "failed" : "pending", nextAt ?? 0, eventId, webhook],
      });
    },

    /** When the next pending delivery is due; null when none is pending. */
    async nextDue(): Promise<number | null> {
      const { rows } = await client.execute(
        "SELECT min(next_at) AS next FROM alert_deliveries WHERE status = 'pending'",
      );
      const next = rows[0]?.next;
      return next === null || next === undefined ? null : Number(next);
    },

    /** Names of accounts (by row id) and keys (with their accounts' names), for event data. */
    async names(accountIds: readonly number[], keyIds: readonly string[]) {
      const accounts = new Map<number, string>();
      const keys = new Map<string, { name: string | null; account: string }>();
      if (accountIds.length > 0) {
        const { rows } = await client.execute({
          sql: `SELECT id, name FROM accounts WHERE id IN (${placeholders(accountIds.length)})`,
          args: [...accountIds],
        });
        for (const row of rows) accounts.set(Number(row.id), String(row.name));
      }
      if (keyIds.length > 0) {
        const { rows } = await client.execute({
          sql: `SELECT k.id, k.name, a.name AS account FROM api_keys k
            JOIN accounts a ON a.id = k.account_id WHERE k.id IN (${placeholders(keyIds.length)})`,
          args: [...keyIds],
        });
        for (const row of rows) {
          keys.set(String(row.id), {
            name: row.name === null ? null : String(row.name),
            account: String(row.account),
          });
        }
      }
      return { accounts, keys };
    },

    /**
     * `key.expiring` for each usable key that expires within `withinMs` of `now`, once per
     * key and expiry (a changed expiry is announced again), whichever node looks first.
     */
    async keysExpiring(now: number, withinMs: number): Promise<void> {
      await client.execute({
        sql: `INSERT INTO alert_events (id, type, scope, threshold_ppm, created_at, facts, dedupe)
          SELECT ${newId}, 'key.expiring', 'key:' || id, NULL, CAST(? AS BIGINT),
            '{"kind":"key","id":"' || id || '","expires_at":' || expires_at || '}',
            'key.expiring:' || id || ':' || expires_at
          FROM api_keys
          WHERE expires_at > ? AND expires_at <= ? AND enabled = 1 AND revoked = 0
          ON CONFLICT DO NOTHING`,
        args: [now, now, now + withinMs],
      });
    },

    /**
     * A node saw `channel` go `state` (down: it cooled down; up: it recovered): the
     * incident is opened or closed, and announced unless an event of the channel went out
     * less than INCIDENT_QUIET_MS ago (`reportIncidents` announces it later then).
     */
    async channelChanged(
      channel: string,
      state: "down" | "up",
      reason: string,
      now: number,
    ): Promise<void> {
      await client.batch([
        {
          sql: `INSERT INTO channel_incidents (channel, state, changed_at, reason)
            VALUES (?, ?, ?, ?)
            ON CONFLICT (channel) DO UPDATE SET state = excluded.state,
              changed_at = excluded.changed_at, reason = excluded.reason
            WHERE channel_incidents.state <> excluded.state`,
          args: [channel, state, now, reason],
        },
        ...this.reportStatements(now, channel),
      ]);
    },

    /** Announces every incident whose state changed since its last event, quiet period over. */
    async reportIncidents(now: number): Promise<void> {
      await client.batch(this.reportStatements(now));
    },

    /** The event of each incident due one, then its mark; one channel's or all. */
    reportStatements(now: number, channel?: string) {
      const which = channel === undefined ? "" : " AND channel = ?";
      const due = `state <> reported_state AND reported_at <= ?${which}`;
      const args = [now - INCIDENT_QUIET_MS, ...(channel === undefined ? [] : [channel])];
      return [
        {
          sql: `INSERT INTO alert_events (id, type, scope, threshold_ppm, created_at, facts, dedupe)
            SELECT ${newId}, 'channel.' || state, 'channel:' || channel, NULL, CAST(? AS BIGINT),
              '{"channel":' || ${jsonString("channel")} || ',"reason":' ||
              ${jsonString("coalesce(reason, '')")} || '}',
              'channel.' || state || ':' || channel || ':' || changed_at
            FROM channel_incidents WHERE ${due}
            ON CONFLICT DO NOTHING`,
          args: [now, ...args],
        },
        {
          sql: `UPDATE channel_incidents SET reported_state = state, reported_at = ?
            WHERE ${due}`,
          args: [now, ...args],
        },
      ];
    },

    /** The newest events, with their deliveries. */
    async list(limit: number): Promise<{ event: StoredEvent; deliveries: DeliveryRow[] }[]> {
      const events = (await client.execute({
        sql: "SELECT * FROM alert_events ORDER BY created_at DESC, id DESC LIMIT ?",
        args: [limit],
      })).rows.map(eventOf);
      if (events.length === 0) return [];
      const { rows } = await client.execute({
        sql: `SELECT * FROM alert_deliveries WHERE event_id IN (${placeholders(events.length)})
          ORDER BY webhook`,
        args: events.map((event) => event.id),
      });
      const deliveries = rows.map((row): DeliveryRow => ({
        eventId: String(row.event_id),
        webhook: String(row.webhook),
        status: String(row.status),
        attempts: Number(row.attempts),
        lastError: row.last_error === null ? null : String(row.last_error),
        deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
        nextAt: Number(row.next_at),
      }));
      return events.map((event) => ({
        event,
        deliveries: deliveries.filter((delivery) => delivery.eventId === event.id),
      }));
    },
  };
}

/** A column's text as a JSON string literal, in SQL both dialects run. */
function jsonString(column: string): string {
  return `'"' || replace(replace(${column}, '\\', '\\\\'), '"', '\\"') || '"'`;
}

export { newEventId };
