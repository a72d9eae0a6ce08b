/**
 * The store: what the request path and the recovery sweep ask of the database, behind
 * one interface, written once over plain SQL (sql_store.ts) with the money operations of
 * each dialect (sqlite_store.ts for SQLite files and libSQL servers, postgres_store.ts for
 * PostgreSQL). Each operation is atomic and checks its conditions inside the database, so
 * concurrent requests, on one process or on several, can never both spend the same money.
 */
import type { BudgetLimit } from "./budget_thresholds.ts";
import type { ApiKey } from "./schema.ts";

/**
 * The budgets in force for a hold or its growth (design.md "Budgets"): each scope's limit
 * and period, and the thresholds (ppm ascending) a refusal's `budget.exhausted` counts in.
 */
export interface HoldBudgets {
  key?: BudgetLimit;
  account?: BudgetLimit;
  levels: readonly number[];
}

/** What a settlement's budgets and alerts are judged against; absent when nothing is. */
export interface SettleBudgets {
  key?: BudgetLimit;
  account?: BudgetLimit;
  /** Budget thresholds in ppm, ascending, the exhausted one last. */
  levels: readonly number[];
  /** Floors of a prepaid account's available balance, in micro-USD (`balance.low`). */
  floors: readonly number[];
}

/** A hold to take: the worst-case cost and tokens of one request, and what its row needs. */
export interface NewHold {
  id: string;
  instanceId: string;
  accountId: number;
  keyId: string;
  amountMicros: number;
  tokens: number;
  /**
   * This process's clock. A store shared by several processes keeps `createdAt` and
   * `expiresAt - createdAt` but measures both from its own clock, which every node shares.
   */
  createdAt: number;
  expiresAt: number;
  requestId: string;
  model: string;
  entryPoint: string;
  stream: boolean;
  /** Estimated input tokens and their cost: billed if the request never settles. */
  inputTokens: number;
  inputCostMicros: number;
  /** What the hold counts against the key's budget (its worst case; 0 without a budget). */
  keyBudgetMicros?: number;
  /** What it counts against the account's budget (0 without one). */
  accountBudgetMicros?: number;
  /** The budgets in force, checked when it is taken; absent without any. */
  budgets?: HoldBudgets;
}

/** The outcome of taking a hold, with the figures of the refusing check itself. */
export type HoldResult =
  | { ok: true }
  | { ok: false; reason: "balance"; availableMicros: number }
  | { ok: false; reason: "key_quota"; availableTokens: number }
  /** A budget would be passed: what it leaves (spent and held counted). */
  | { ok: false; reason: "key_budget" | "account_budget"; availableMicros: number };

/** One request's ledger row and charges, settled against its hold (what it holds now). */
export interface Settle {
  holdId: string;
  accountId: number;
  keyId: string;
  requestId: string;
  createdAt: number;
  model: string;
  entryPoint: string;
  channel: string | null;
  upstreamModel: string | null;
  /** The config's name of the model that served (a fallback's, or the one asked). */
  servedModel?: string | null;
  attempts: number;
  /** The attempts as JSON (billing/attempt_record.ts), or null when none was made. */
  attemptLog?: string | null;
  stream: boolean;
  status: string;
  reason: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  estimated: boolean;
  costMicros: number;
  durationMs: number;
  /** The budgets and alert floors in force at settlement; absent when none is. */
  budgets?: SettleBudgets;
}

/** A settlement that could not be written, and why: its hold stays, for recovery. */
export interface SettlementFailure {
  settle: Settle;
  error: unknown;
}

/** A batch of settlements all written. */
export const NO_FAILURES: readonly SettlementFailure[] = Object.freeze([]);

/** What a settlement repeats of its hold: which hold, and the request's own fields. */
export function settlementOf(hold: NewHold) {
  return {
    holdId: hold.id,
    accountId: hold.accountId,
    keyId: hold.keyId,
    requestId: hold.requestId,
    model: hold.model,
    entryPoint: hold.entryPoint,
    stream: hold.stream,
  } satisfies Partial<Settle>;
}

/** A key row with the account fields that authentication checks. */
export type KeyWithAccount = ApiKey & {
  account_name: string;
  /** 0/1, like every boolean column. */
  account_enabled: number;
  /** 0/1. */
  account_unlimited: number;
  account_budget_mode: string | null;
  account_budget_micros: number | null;
  account_budget_period: string | null;
};

/** A registered serving process. */
export interface Instance {
  id: string;
  host: string;
  pid: number;
  heartbeatAt: number;
}

/** The reason written on the ledger row of a request its gateway never settled. */
export const INTERRUPTED_REASON =
  "The gateway stopped before the request finished; billed for its estimated input.";

/** Holds, settlement, instances and recovery, atomic in the database. */
export interface Store {
  /**
   * Takes a hold if the account's available balance (unless unlimited) and the key's quota
   * both cover it; it is in the database when this resolves. A key without a quota holds
   * no tokens. It never throws; a failure rejects.
   */
  takeHold(hold: NewHold): Promise<HoldResult>;
  /**
   * Grows a hold by `extraMicros` and `extraTokens`, taken only if the account's available
   * balance (unless unlimited) and the key's quota cover them, exactly as `takeHold` (a
   * refusal reports the figures of the check that refused; a hold gone already covers
   * nothing more: a `balance` refusal with nothing available). Its settlement releases the
   * whole, grown hold.
   */
  extendHold(
    holdId: string,
    extraMicros: number,
    extraTokens: number,
    budgets?: { micros: number; in: HoldBudgets },
  ): Promise<HoldResult>;
  /**
   * Writes the ledger row, debits the account (never below what its other holds need,
   * nor below zero: the row records what was debited), adds the key's tokens and
   * releases the hold (what it holds now), all at once. A store may write settlements in
   * batches and give the settlements of one batch the same promise: it resolves once the
   * batch is done, with those of its settlements that could not be written (their holds
   * stay, for recovery); it never rejects.
   */
  settleHold(settle: Settle): Promise<readonly SettlementFailure[]>;
  /**
   * Resolves once every hold taken so far has its row in the database, where other
   * processes read `held`: a store may write a hold's row after its request went upstream.
   */
  flush(): Promise<void>;
  /**
   * Registers this instance or refreshes its heartbeat; returns the store's time, by
   * which heartbeats and hold expiry are judged (the database's clock when shared).
   */
  heartbeat(instance: Instance): Promise<number>;
  /** Every registered instance, heartbeats on the store's clock. */
  listInstances(): Promise<Instance[]>;
  /** Forgets instances (after their holds were interrupted). */
  removeInstances(ids: readonly string[]): Promise<void>;
  /** Ids of holds past their expiry at `now` (the store's time), or of the given instances. */
  findReleasableHolds(now: number, deadInstances: readonly string[]): Promise<string[]>;
  /**
   * Turns holds into `interrupted` ledger rows billed for their estimated input (clamped
   * like any settlement) and releases them; a hold already gone is skipped, so two
   * processes recovering the same hold write one row.
   */
  interruptHolds(holdIds: readonly string[], now: number): Promise<void>;
  /** The key whose secret hashes to `hash`, with its account's state; undefined if none. */
  findKey(hash: string): Promise<KeyWithAccount | undefined>;
  /** Whether any key exists, revoked ones included (a first start creates one only then). */
  hasKeys(): Promise<boolean>;
  /** Resolves when the database answers; rejects otherwise. */
  ping(): Promise<void>;
}

/**
 * Thrown by a store when the database cannot be reached or refuses work for now
 * (connection refused or lost, pool exhausted, database busy or shutting down): the
 * request was not served and may be retried, unlike a bug.
 */
export class DatabaseUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      `The database is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = "DatabaseUnavailableError";
  }
}
