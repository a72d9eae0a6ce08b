/** The accounting seam of the request flow: hold before the upstream call, settle after. */
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config/schema.ts";
import type { EntryName } from "../protocols/types.ts";
import type { AttemptRecord } from "./attempt_record.ts";
import type { GatewayError } from "../errors.ts";

/** What is known of a request when it is admitted, before any upstream call. */
export interface Admission {
  requestId: string;
  principal: Principal;
  config: Config;
  entry: EntryName;
  model: string;
  /** The model of the first attempt, whose worst case the hold covers: an alias's first. */
  pricedModel?: string;
  stream: boolean;
  /** Prompt tokens of the request, estimated generously (the hold's worst case). */
  inputTokens: number;
  /** Prompt tokens as likely as a cheap estimate gets: billed if the request is interrupted. */
  likelyInputTokens: number;
  /** The request's cap on output tokens, if it set one. */
  maxOutputTokens?: number;
}

/** How a request that reached routing ended, for its one ledger row. */
export interface Settlement {
  status: "ok" | "failed" | "aborted";
  reason?: string;
  /** The attempt that served the answer (its last leg), if one did. */
  served?: AttemptRecord;
  /**
   * Every upstream attempt, each billed for its `usage` at its own model's prices: the row's
   * usage and cost are their sums (design.md "Counting rules").
   */
  attempts: readonly AttemptRecord[];
}

/**
 * A settlement under way: its cost is known at once, its ledger write completes later
 * (Accounting.drain waits for it; a failure is logged).
 */
export interface Settling {
  /** The cost charged, in micro-USD (the ledger may clamp it to what the balance covers). */
  costMicros: number;
}

/** A pre-authorization: the worst-case cost held until the request settles. */
export interface Hold {
  /** Whether money or quota was reserved (a free request on a key without quota reserves none). */
  readonly reserved: boolean;
  /**
   * The 403 `budget_exceeded` of the last growth a budget refused (`extend`, `cover`), to
   * answer the client with; undefined when none was, or a balance or quota refused it.
   */
  readonly refusal?: GatewayError;
  /**
   * Grows the hold by `extra` (micro-USD and tokens, beyond what it holds) before a dearer
   * fallback model or a stream rescue, atomically: taken only if the account's available
   * balance (unless unlimited) and the key's quota cover it, else nothing changes and it
   * answers false (failover stops there). The settlement releases the whole, grown hold.
   * A database that cannot be reached rejects with the 503 `database_unavailable`.
   */
  extend(extra: { amountMicros: number; tokens: number }): Promise<boolean>;
  /**
   * Grows the hold, when it must, to cover what `billed` attempts cost so far plus the
   * worst case of one more attempt (`next`: its model, its input tokens, its cap on
   * output): before a dearer fallback or a rescue. False when the balance or the quota
   * cannot cover it, and the hold is as it was.
   */
  cover(
    next: { model: string; inputTokens: number; maxOutputTokens?: number },
    billed: readonly AttemptRecord[],
  ): Promise<boolean>;
  /**
   * Writes the ledger row, charges the usage and releases the hold, in one
   * transaction that runs after the answer went out: the hold, already committed,
   * keeps the request in the ledger if the process dies first.
   */
  settle(settlement: Settlement): Settling;
}

/** Holds and settles requests against balances, quotas and the ledger. */
export interface Accounting {
  /** Holds the worst-case cost; 401/403 `insufficient_user_quota` when it is not covered. */
  hold(admission: Admission): Promise<Hold>;
  /**
   * Resolves once every settlement begun so far is written, and every hold taken so far
   * (for shutdown and tests).
   */
  drain(): Promise<void>;
}
