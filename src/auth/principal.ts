/** Who is calling: the verified key, its account and group. */

/** A key's or an account's own budget (billing/budgets.ts): null mode follows the default. */
export interface OwnBudgetSetting {
  mode: "own" | "none" | null;
  micros: number | null;
  period: string | null;
}

/** A key as authentication needs it: the key row joined with its account. */
export interface KeyRecord {
  id: string;
  accountId: number;
  accountName: string;
  accountEnabled: boolean;
  unlimited: boolean;
  group: string;
  enabled: boolean;
  revoked: boolean;
  expiresAt: number | null;
  quotaTokens: number | null;
  usedTokens: number;
  /** Models the key is restricted to, or null for the group's models. */
  models: string[] | null;
  /** CIDRs the key may be used from, or null for anywhere. */
  allowIps: string[] | null;
  /** Whether the key may use the admin API and the dashboard. */
  admin: boolean;
  /** The key's own budget; absent: its group's default. */
  budget?: OwnBudgetSetting;
  /** Its account's own budget; absent: `[budgets] account`. */
  accountBudget?: OwnBudgetSetting;
}

/** Finds a key by the SHA-256 hex of its secret. */
export type KeyLookup = (hash: string) => Promise<KeyRecord | undefined>;

/** An authenticated caller, as later steps of the request see it. */
export type Principal = KeyRecord;
