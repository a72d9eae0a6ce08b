/**
 * Holds, settlements and interruptions on SQLite, a batch at a time: the jobs queued
 * in one turn (write_queue.ts) read the accounts and keys they touch once, are decided
 * here in queue order against running totals (so a hold sees every hold before it, in
 * this batch or an earlier one: no two can spend the same money), and write each
 * account's and key's new totals once, all in one write transaction. Holds taken through
 * the hold journal are decided without a transaction (hold_decider.ts) and written later
 * as `record` jobs. A settlement's rows are ledger_rows.ts', an interruption's
 * hold_recovery.ts', the totals' reads and writes totals.ts'.
 * The types are the store's (store.ts).
 */
import { interrupt, type InterruptJob, RELEASE_INTERRUPTED } from "./hold_recovery.ts";
import { type BatchRows, charge, ledgerWrites } from "./ledger_rows.ts";
import { BatchRollups } from "./rollup_rows.ts";
import { inserts, insertsOf } from "./row_inserts.ts";
import type { RunTransaction, SqlStatement, SqlValue } from "./sql_client.ts";
import type { HoldResult, NewHold, Settle } from "./store.ts";
import {
  type AccountTotals,
  type KeyTotals,
  totalsOf,
  totalsReads,
  totalsWrites,
} from "./totals.ts";

/** One job of the accounting queue. */
export type AccountingJob =
  | { kind: "hold"; hold: NewHold }
  /** A hold taken already (in the hold journal): its row and what it holds are written. */
  | { kind: "record"; hold: NewHold }
  | { kind: "settle"; settle: Settle }
  | InterruptJob;

// A settlement knows what its hold held: whether the hold was still there is enough.
const RELEASE = "DELETE FROM holds WHERE id = ?";
const INSERT_HOLDS = insertsOf(
  "holds",
  `id, instance_id, account_id, key_id, amount_micros, tokens, created_at, expires_at,
  request_id, model, entry_point, stream, input_tokens, input_cost_micros`,
);

/**
 * Runs a batch of jobs in one transaction; each job's result (a hold's outcome) in order.
 * `committed` runs once the batch committed, before anything else uses the database.
 */
export function runAccounting(
  transaction: RunTransaction,
  jobs: readonly AccountingJob[],
  committed?: () => void,
): Promise<(HoldResult | undefined)[]> {
  const accountIds = new Set<number>();
  const keyIds = new Set<string>();
  const releases: SqlStatement[] = [];
  const recorded = new Set(jobs.flatMap((job) => job.kind === "record" ? [job.hold.id] : []));
  /** Holds written and settled in this batch: neither their row nor its release is written. */
  const settledAtOnce = new Set<string>();
  for (const job of jobs) {
    const { accountId, keyId } = job.kind === "hold" || job.kind === "record"
      ? job.hold
      : job.kind === "settle"
      ? job.settle
      : job;
    accountIds.add(accountId);
    keyIds.add(keyId);
    if (job.kind === "settle" && recorded.has(job.settle.holdId)) {
      settledAtOnce.add(job.settle.holdId);
    } else if (job.kind === "settle") releases.push({ sql: RELEASE, args: [job.settle.holdId] });
    if (job.kind === "interrupt") releases.push({ sql: RELEASE_INTERRUPTED, args: [job.holdId] });
  }
  return transaction([...totalsReads(accountIds, keyIds), ...releases], (results) => {
    const { accounts, keys } = totalsOf(results, accountIds, keyIds);
    let released = accountIds.size + keyIds.size;
    const holdRows: SqlValue[][] = [];
    const rows: BatchRows = { ledgerRows: [], rollups: new BatchRollups() };
    const value = jobs.map((job) => {
      if (job.kind === "hold") {
        const result = take(job.hold, accounts, keys);
        if (result.ok) holdRows.push(holdRow(job.hold));
        return result;
      }
      if (job.kind === "record") {
        countHeld(job.hold, accounts, keys);
        if (!settledAtOnce.has(job.hold.id)) holdRows.push(holdRow(job.hold));
        return undefined;
      }
      if (job.kind === "settle") {
        const { settle } = job;
        const held = settledAtOnce.has(settle.holdId) ||
          results[released++]!.rowsAffected > 0;
        charge(settle, held, accounts.get(settle.accountId), keys.get(settle.keyId), rows);
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
    ];
    return { writes, value, committed };
  });
}

/**
 * A hold is taken if the account's available balance and the key's quota both cover it;
 * a refusal reports the figures of the check that refused it.
 */
export function take(
  hold: NewHold,
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
): HoldResult {
  const account = accounts.get(hold.accountId);
  const key = keys.get(hold.keyId);
  if (
    account && key &&
    (account.unlimited || account.balance - account.held >= hold.amountMicros) &&
    (key.quota === null || key.quota - key.used - key.held >= hold.tokens)
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
  return { ok: false, reason: "key_quota", availableTokens: Math.max(0, availableTokens) };
}

/** Counts a taken hold in its account's and key's totals. */
function countHeld(
  { accountId, keyId, amountMicros, tokens }: NewHold,
  accounts: Map<number, AccountTotals>,
  keys: Map<string, KeyTotals>,
): void {
  const account = accounts.get(accountId);
  const key = keys.get(keyId);
  if (account) account.held += amountMicros;
  if (key) key.held += tokens;
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
  ];
}
