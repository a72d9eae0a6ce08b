/**
 * Holds, settlements and interruptions on SQLite, a batch at a time: the jobs queued
 * in one turn (write_queue.ts) read the accounts and keys they touch once, are decided
 * here in queue order against running totals (so a hold sees every hold before it, in
 * this batch or an earlier one: no two can spend the same money), and write each
 * account's and key's new totals once, all in one step of a write transaction. Holds
 * taken through the hold journal are decided without a transaction (hold_decider.ts) and
 * written later as `record` jobs, and so is what they grew by (`grow`). A settlement's
 * rows are ledger_rows.ts', an interruption's hold_recovery.ts', the totals' reads and
 * writes totals.ts'. The types are the store's (store.ts).
 */
import { budgetRefusal, holdBudgets, refusalEvent } from "./budget_totals.ts";
import { alertInserts } from "./alert_rows.ts";
import { interrupt, type InterruptJob, RELEASE_INTERRUPTED } from "./hold_recovery.ts";
import { type BatchRows, charge, ledgerWrites } from "./ledger_rows.ts";
import { BatchRollups } from "./rollup_rows.ts";
import { inserts, insertsOf } from "./row_inserts.ts";
import type { SqlStatement, SqlValue, Step } from "./sql_client.ts";
import type { HoldResult, NewHold, Settle } from "./store.ts";
import {
  type AccountTotals,
  accountTotals,
  type KeyTotals,
  keyTotals,
  totalsOf,
  totalsReads,
  totalsWrites,
} from "./totals.ts";

/** What a hold or its growth holds on an account and a key (and their budgets). */
export type Reservation = Pick<
  NewHold,
  | "accountId"
  | "keyId"
  | "amountMicros"
  | "tokens"
  | "keyBudgetMicros"
  | "accountBudgetMicros"
  | "budgets"
>;

/** One job of the accounting queue. */
export type AccountingJob =
  | { kind: "hold"; hold: NewHold }
  /** A hold taken already (in the hold journal): its row and what it holds are written. */
  | { kind: "record"; hold: NewHold }
  /** What a hold in the database grew by, decided already (hold_decider.ts): written. */
  | { kind: "grow"; holdId: string; growth: Reservation }
  | { kind: "settle"; settle: Settle }
  /** A hold the hold decider refused for a budget: its `budget.exhausted`, once a period. */
  | { kind: "refused"; hold: NewHold; result: HoldResult }
  | InterruptJob;

/** What an extension of a hold gone (settled, or interrupted) answers: it covers nothing more. */
export const GONE: HoldResult = { ok: false, reason: "balance", availableMicros: 0 };

/** A settlement releases what its hold holds then (grown or not; nothing if it is gone). */
const RELEASE = `DELETE FROM holds WHERE id = ?
  RETURNING amount_micros, tokens, key_budget_micros, account_budget_micros`;
const GROW = `UPDATE holds SET amount_micros = amount_micros + ?, tokens = tokens + ?,
  key_budget_micros = key_budget_micros + ?, account_budget_micros = account_budget_micros + ?
  WHERE id = ?`;
/** GROW as a batch's read: before its releases, which then free the grown hold whole. */
const GROW_FIRST = `${GROW} RETURNING id`;
const HOLD_TOTALS = [
  `SELECT a.* FROM holds h JOIN accounts a ON a.id = h.account_id WHERE h.id = ?`,
  `SELECT k.* FROM holds h JOIN api_keys k ON k.id = h.key_id WHERE h.id = ?`,
];
const INSERT_HOLDS = insertsOf(
  "holds",
  `id, instance_id, account_id, key_id, amount_micros, tokens, created_at, expires_at,
  request_id, model, entry_point, stream, input_tokens, input_cost_micros, key_budget_micros,
  account_budget_micros`,
);

/**
 * A batch of jobs as one step of a write transaction; its value is each job's result (a
 * hold's outcome) in order. `committed` runs once the batch committed, before anything
 * else uses the database.
 */
export function accountingStep(
  jobs: readonly AccountingJob[],
  committed?: () => void,
): Step<(HoldResult | undefined)[]> {
  const accountIds = new Set<number>();
  const keyIds = new Set<string>();
  const grows: SqlStatement[] = [];
  const releases: SqlStatement[] = [];
  const recorded = new Map(
    jobs.flatMap((job) => job.kind === "record" ? [[job.hold.id, job.hold] as const] : []),
  );
  /** Holds written and settled in this batch: neither their row nor its release is written. */
  const settledAtOnce = new Set<string>();
  for (const job of jobs) {
    const { accountId, keyId } = job.kind === "hold" || job.kind === "record" ||
        job.kind === "refused"
      ? job.hold
      : job.kind === "grow"
      ? job.growth
      : job.kind === "settle"
      ? job.settle
      : job;
    accountIds.add(accountId);
    keyIds.add(keyId);
    if (job.kind === "settle" && recorded.has(job.settle.holdId)) {
      settledAtOnce.add(job.settle.holdId);
    } else if (job.kind === "settle") releases.push({ sql: RELEASE, args: [job.settle.holdId] });
    if (job.kind === "interrupt") releases.push({ sql: RELEASE_INTERRUPTED, args: [job.holdId] });
    if (job.kind === "grow") {
      const { amountMicros, tokens, keyBudgetMicros = 0, accountBudgetMicros = 0 } = job.growth;
      grows.push({
        sql: GROW_FIRST,
        args: [amountMicros, tokens, keyBudgetMicros, accountBudgetMicros, job.holdId],
      });
    }
  }
  return {
    reads: [...totalsReads(accountIds, keyIds), ...grows, ...releases],
    decide(results) {
      const { accounts, keys } = totalsOf(results, accountIds, keyIds);
      let grown = accountIds.size + keyIds.size;
      let released = grown + grows.length;
      const holdRows: SqlValue[][] = [];
      const rows: BatchRows = { ledgerRows: [], rollups: new BatchRollups(), alerts: [] };
      const refused = (hold: NewHold, result: HoldResult) => {
        const event = refusalEvent(result, hold, {
          ...hold,
          account: accounts.get(hold.accountId)?.budget,
          key: keys.get(hold.keyId)?.budget,
        }, hold.createdAt);
        if (event) rows.alerts.push(event);
      };
      const value = jobs.map((job) => {
        if (job.kind === "hold") {
          const result = take(job.hold, accounts, keys);
          if (result.ok) holdRows.push(holdRow(job.hold));
          else refused(job.hold, result);
          return result;
        }
        if (job.kind === "refused") {
          refused(job.hold, job.result);
          return undefined;
        }
        if (job.kind === "record") {
          countHeld(job.hold, accounts, keys);
          if (!settledAtOnce.has(job.hold.id)) holdRows.push(holdRow(job.hold));
          return undefined;
        }
        if (job.kind === "grow") {
          // A hold gone meanwhile (interrupted) grew by nothing.
          if (results[grown++]!.rows.length > 0) countHeld(job.growth, accounts, keys);
          return undefined;
        }
        if (job.kind === "settle") {
          const { settle } = job;
          const hold = recorded.get(settle.holdId);
          const row = hold ? undefined : results[released++]!.rows[0];
          const freed = hold
            ? {
              micros: hold.amountMicros,
              tokens: hold.tokens,
              keyBudget: hold.keyBudgetMicros ?? 0,
              accountBudget: hold.accountBudgetMicros ?? 0,
            }
            : row && {
              micros: Number(row.amount_micros),
              tokens: Number(row.tokens),
              keyBudget: Number(row.key_budget_micros),
              accountBudget: Number(row.account_budget_micros),
            };
          charge(settle, freed, accounts.get(settle.accountId), keys.get(settle.keyId), rows);
          return undefined;
        }
        const interrupted = results[released++]!.rows[0];
        if (interrupted) interrupt(job, interrupted, accounts, keys, rows);
        return undefined;
      });
      const writes = [
        ...inserts(INSERT_HOLDS, holdRows),
        ...ledgerWrites(rows),
        ...totalsWrites(accounts, keys),
        ...alertInserts(rows.alerts),
      ];
      return { writes, value, committed };
    },
  };
}

/**
 * Grows a hold in the database by `growth`'s amount and tokens if its account's available
 * balance and its key's quota cover them, as a hold is taken (`take`): one step of its own,
 * for a store that decides holds in transactions.
 */
export function extendStep(
  holdId: string,
  growth: Omit<Reservation, "accountId" | "keyId">,
): Step<HoldResult> {
  const reads = HOLD_TOTALS.map((sql) => ({ sql, args: [holdId] }));
  return {
    reads,
    decide(results) {
      const [account, key] = results.map((result) => result.rows[0]);
      // A hold gone (settled, or interrupted) covers nothing more.
      if (!account || !key) return { writes: [], value: GONE };
      const accounts = accountTotals([account]);
      const keys = keyTotals([key]);
      const asked = { ...growth, accountId: Number(account.id), keyId: String(key.id) };
      const value = take(asked, accounts, keys);
      if (!value.ok) return { writes: [], value };
      const writes: SqlStatement[] = [
        {
          sql: GROW,
          args: [
            growth.amountMicros,
            growth.tokens,
            growth.keyBudgetMicros ?? 0,
            growth.accountBudgetMicros ?? 0,
            holdId,
          ],
        },
        ...totalsWrites(accounts, keys),
      ];
      return { writes, value };
    },
  };
}

/**
 * A hold is taken if the account's available balance and the key's quota both cover it;
 * a refusal reports the figures of the check that refused it.
 */
export function take(
  hold: Reservation,
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
): HoldResult {
  const account = accounts.get(hold.accountId);
  const key = keys.get(hold.keyId);
  const budget = account && key && hold.budgets
    ? budgetRefusal(hold, account.budget, key.budget)
    : undefined;
  if (
    account && key &&
    (account.unlimited || account.balance - account.held >= hold.amountMicros) &&
    (key.quota === null || key.quota - key.used - key.held >= hold.tokens) &&
    budget === undefined
  ) {
    countHeld(hold, accounts, keys);
    return { ok: true };
  }
  // Without the account or the key nothing is available.
  const availableMicros = account && key ? account.balance - account.held : 0;
  if (!(account?.unlimited && key) && availableMicros < hold.amountMicros) {
    return { ok: false, reason: "balance", availableMicros: Math.max(0, availableMicros) };
  }
  const availableTokens = key?.quota != null ? key.quota - key.used - key.held : 0;
  if (budget && (key?.quota == null || availableTokens >= hold.tokens)) return budget;
  return { ok: false, reason: "key_quota", availableTokens: Math.max(0, availableTokens) };
}

/** Counts a taken hold in its account's and key's totals. */
function countHeld(
  reservation: Reservation,
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
): void {
  const { accountId, keyId, amountMicros, tokens } = reservation;
  const account = accounts.get(accountId);
  const key = keys.get(keyId);
  if (account) account.held += amountMicros;
  if (key) key.held += tokens;
  if (reservation.keyBudgetMicros || reservation.accountBudgetMicros) {
    holdBudgets(reservation, account?.budget, key?.budget);
  }
}

/** The hold's row, in INSERT_HOLDS' column order. */
function holdRow(hold: NewHold): SqlValue[] {
  return [
    hold.id,
    hold.instanceId,
    hold.accountId,
    hold.keyId,
    hold.amountMicros,
    hold.tokens,
    hold.createdAt,
    hold.expiresAt,
    hold.requestId,
    hold.model,
    hold.entryPoint,
    hold.stream ? 1 : 0,
    hold.inputTokens,
    hold.inputCostMicros,
    hold.keyBudgetMicros ?? 0,
    hold.accountBudgetMicros ?? 0,
  ];
}
