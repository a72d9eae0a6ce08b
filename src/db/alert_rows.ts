/**
 * Alert events as rows of the outbox (`alert_events`, migrations/012_budgets.sql): what
 * decided an event writes in its own transaction is its type, scope and facts (ids and
 * integers); the delivery worker renders the facts as the event's `data` later
 * (alerts/event_data.ts), off the request path.
 */
import { inserts, insertsOf } from "./row_inserts.ts";
import type { SqlStatement, SqlValue } from "./sql_client.ts";
import type { BudgetCounter, BudgetLimit } from "./budget_thresholds.ts";

/** One event to write. */
export interface AlertRow {
  id: string;
  type: string;
  /** `key:ID`, `account:ID` (the account's row id) or `channel:NAME`; null for a test. */
  scope: string | null;
  thresholdPpm: number | null;
  createdAt: number;
  facts: Record<string, unknown>;
  /** Set for an event that must be written once only (a timer's, an incident's). */
  dedupe?: string;
}

const INSERT_ALERTS = insertsOf(
  "alert_events",
  "id, type, scope, threshold_ppm, created_at, facts, dedupe",
);

/** A new event id: also the `webhook-id` of every delivery of the event. */
export function newEventId(): string {
  return `evt_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** The INSERTs of `rows` (a batch's). */
export function alertInserts(rows: readonly AlertRow[]): SqlStatement[] {
  return inserts(INSERT_ALERTS, rows.map(alertValues));
}

/** An event's values in the INSERT's column order. */
export function alertValues(row: AlertRow): SqlValue[] {
  return [
    row.id,
    row.type,
    row.scope,
    row.thresholdPpm,
    row.createdAt,
    JSON.stringify(row.facts),
    row.dedupe ?? null,
  ];
}

/** A budget threshold crossed (`ppm` below 1e6) or the budget exhausted. */
export function budgetEvent(
  kind: "key" | "account",
  id: string | number,
  ppm: number,
  limit: BudgetLimit,
  counter: BudgetCounter,
  createdAt: number,
  refused = false,
): AlertRow {
  return {
    id: newEventId(),
    type: ppm >= 1_000_000 ? "budget.exhausted" : "budget.threshold_crossed",
    scope: `${kind}:${id}`,
    thresholdPpm: ppm,
    createdAt,
    facts: {
      kind,
      id,
      budget_micros: limit.micros,
      spent_micros: counter.spent,
      held_micros: counter.held,
      period: limit.period,
      period_start: limit.start,
      renews_at: limit.end,
      ...(refused ? { refused: true } : {}),
    },
  };
}

/** An account's available balance fell under a floor. */
export function balanceEvent(
  accountId: number,
  floor: number,
  available: number,
  createdAt: number,
): AlertRow {
  return {
    id: newEventId(),
    type: "balance.low",
    scope: `account:${accountId}`,
    thresholdPpm: null,
    createdAt,
    facts: { kind: "account", id: accountId, floor_micros: floor, available_micros: available },
  };
}
