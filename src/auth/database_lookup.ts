/** Key lookup against the database, shaped as authentication needs it. */
import type { Store } from "../db/store.ts";
import { unlessUnavailable } from "../db/unavailable.ts";
import type { KeyLookup, OwnBudgetSetting } from "./principal.ts";

const jsonList = (text: string | null): string[] | null => (text ? JSON.parse(text) : null);

/** Finds keys by hash through the store (wrap it in `cacheKeyLookup` on the request path). */
export function databaseKeyLookup(store: Store): KeyLookup {
  return async function lookupKey(hash) {
    const row = await unlessUnavailable(store.findKey(hash));
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      accountName: row.account_name,
      accountEnabled: row.account_enabled === 1,
      unlimited: row.account_unlimited === 1,
      group: row.group_name,
      enabled: row.enabled === 1,
      revoked: row.revoked === 1,
      expiresAt: row.expires_at,
      quotaTokens: row.quota_tokens,
      usedTokens: row.used_tokens,
      models: jsonList(row.models),
      allowIps: jsonList(row.allow_ips),
      admin: row.admin === 1,
      budget: ownBudget(row.budget_mode, row.budget_micros, row.budget_period),
      accountBudget: ownBudget(
        row.account_budget_mode,
        row.account_budget_micros,
        row.account_budget_period,
      ),
    };
  };
}

/** A budget setting from its columns; undefined when it follows the default. */
function ownBudget(
  mode: string | null,
  micros: number | null,
  period: string | null,
): OwnBudgetSetting | undefined {
  if (mode !== "own" && mode !== "none") return undefined;
  return { mode, micros: micros === null ? null : Number(micros), period };
}
