/** The accounting seam of the request flow: hold before the upstream call, settle after. */
import type { Principal } from "../auth/principal.ts";
import type { Config, EntryProtocol } from "../config/schema.ts";
import type { Usage } from "../protocols/types.ts";

/** What is known of a request when it is admitted, before any upstream call. */
export interface Admission {
  requestId: string;
  principal: Principal;
  config: Config;
  entry: EntryProtocol;
  model: string;
  stream: boolean;
  /** Estimated prompt tokens of the request. */
  inputTokens: number;
  /** The request's cap on output tokens, if it set one. */
  maxOutputTokens?: number;
}

/** How a request that reached routing ended, for its one ledger row. */
export interface Settlement {
  status: "ok" | "failed" | "aborted";
  reason?: string;
  channel?: string;
  upstreamModel?: string;
  attempts: number;
  usage: Usage;
  /** True when usage was estimated because the upstream reported none. */
  estimated: boolean;
}

/** A pre-authorization: the worst-case cost held until the request settles. */
export interface Hold {
  /** Whether something was reserved (not for a free request on a key without a quota). */
  readonly reserved: boolean;
  /**
   * Writes the ledger row, charges the usage and releases the hold, in one
   * transaction; resolves to the cost charged in micro-USD.
   */
  settle(settlement: Settlement): Promise<number>;
}

/** Holds and settles requests against balances, quotas and the ledger. */
export interface Accounting {
  /** Holds the worst-case cost; throws 401/403 `insufficient_user_quota` when it is not covered. */
  hold(admission: Admission): Promise<Hold>;
}
