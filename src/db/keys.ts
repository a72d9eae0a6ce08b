/**
 * Queries on API keys: create, list, update, enable, disable, revoke; and the SQL of the
 * lookup by hash the store runs while serving, so that serving never needs the query builder.
 */
import type { Kysely, Updateable } from "kysely";
import type { ApiKey, ApiKeysTable, Database, NewApiKey } from "./schema.ts";

/** A key row with the name of its account, as listings show it. */
export type KeyWithAccountName = ApiKey & { account_name: string };

/** What `setKeyEnabled` did: `revoked` means enabling was refused because revocation is final. */
export type SetKeyEnabledResult = "updated" | "not_found" | "revoked";

/** Inserts a key row (only the hash of its secret) and returns it as stored. */
export async function createKey(db: Kysely<Database>, key: NewApiKey): Promise<ApiKey> {
  return await db.insertInto("api_keys").values(key).returningAll().executeTakeFirstOrThrow();
}

/**
 * Keys with their account names, oldest first; only one account's when `accountName` is
 * given, only one key when `id` is.
 */
export async function listKeys(
  db: Kysely<Database>,
  filter: { accountName?: string; id?: string } = {},
): Promise<KeyWithAccountName[]> {
  let query = db
    .selectFrom("api_keys")
    .innerJoin("accounts", "accounts.id", "api_keys.account_id")
    .selectAll("api_keys")
    .select("accounts.name as account_name");
  if (filter.accountName !== undefined) {
    query = query.where("accounts.name", "=", filter.accountName);
  }
  if (filter.id !== undefined) query = query.where("api_keys.id", "=", filter.id);
  return await query.orderBy("api_keys.created_at").orderBy("api_keys.id").execute();
}

/** What an update may change of a key; a column left undefined stays as it is. */
export type KeyChanges = Partial<
  Pick<
    Updateable<ApiKeysTable>,
    | "group_name"
    | "name"
    | "quota_tokens"
    | "expires_at"
    | "models"
    | "allow_ips"
    | "admin"
    | "enabled"
    | "budget_mode"
    | "budget_micros"
    | "budget_period"
  >
>;

/**
 * Changes a key in one statement; a revoked key is never changed (revocation is final),
 * which the same statement checks, so a concurrent revoke cannot slip between.
 */
export async function updateKey(
  db: Kysely<Database>,
  id: string,
  changes: KeyChanges,
): Promise<SetKeyEnabledResult> {
  const result = Object.keys(changes).length === 0
    ? await db.selectFrom("api_keys").select("id").where("id", "=", id).where("revoked", "=", 0)
      .execute().then((rows) => ({ numUpdatedRows: BigInt(rows.length) }))
    : await db.updateTable("api_keys").set(changes).where("id", "=", id).where("revoked", "=", 0)
      .executeTakeFirst();
  if (result.numUpdatedRows > 0n) return "updated";
  const key = await db.selectFrom("api_keys").select("revoked").where("id", "=", id)
    .executeTakeFirst();
  return key === undefined ? "not_found" : "revoked";
}

/** Enables or disables a key; a revoked key can be disabled but never enabled again. */
export async function setKeyEnabled(
  db: Kysely<Database>,
  id: string,
  enabled: boolean,
): Promise<SetKeyEnabledResult> {
  let update = db.updateTable("api_keys").set({ enabled: enabled ? 1 : 0 }).where("id", "=", id);
  // The revoked check is in the same statement, so a concurrent revoke cannot slip between.
  if (enabled) update = update.where("revoked", "=", 0);
  const result = await update.executeTakeFirst();
  if (result.numUpdatedRows > 0n) return "updated";
  const key = await db.selectFrom("api_keys").select("revoked").where("id", "=", id)
    .executeTakeFirst();
  return key === undefined ? "not_found" : "revoked";
}

/** Revokes a key for good (and disables it); returns false when there is no such key. */
export async function revokeKey(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db
    .updateTable("api_keys")
    .set({ revoked: 1, enabled: 0 })
    .where("id", "=", id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * A key by the hash of its secret, with its account's state: what the store runs
 * (`Store.findKey`) on every dialect, so that serving never needs the query builder.
 */
export const KEY_BY_HASH = `SELECT k.*, a.name AS account_name, a.enabled AS account_enabled,
    a.unlimited AS account_unlimited, a.budget_mode AS account_budget_mode,
    a.budget_micros AS account_budget_micros, a.budget_period AS account_budget_period
  FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = ?`;
