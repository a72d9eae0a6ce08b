/** Queries on API keys: create, list, look up by hash, enable, disable, revoke, count. */
import type { Kysely } from "kysely";
import type { ApiKey, Database, NewApiKey } from "./schema.ts";

/** A key row with the name of its account, as listings show it. */
export type KeyWithAccountName = ApiKey & { account_name: string };

/** A key row with the account fields that authentication checks. */
export type KeyWithAccount = ApiKey & {
  account_name: string;
  /** 0/1, like every boolean column. */
  account_enabled: number;
  /** 0/1. */
  account_unlimited: number;
};

/** What `setKeyEnabled` did: `revoked` means enabling was refused because revocation is final. */
export type SetKeyEnabledResult = "updated" | "not_found" | "revoked";

/** Inserts a key row (only the hash of its secret) and returns it as stored. */
export async function createKey(db: Kysely<Database>, key: NewApiKey): Promise<ApiKey> {
  return await db.insertInto("api_keys").values(key).returningAll().executeTakeFirstOrThrow();
}

/** Keys with their account names, oldest first; only one account's when `accountName` is given. */
export async function listKeys(
  db: Kysely<Database>,
  filter: { accountName?: string } = {},
): Promise<KeyWithAccountName[]> {
  let query = db
    .selectFrom("api_keys")
    .innerJoin("accounts", "accounts.id", "api_keys.account_id")
    .selectAll("api_keys")
    .select("accounts.name as account_name");
  if (filter.accountName !== undefined) {
    query = query.where("accounts.name", "=", filter.accountName);
  }
  return await query.orderBy("api_keys.created_at").orderBy("api_keys.id").execute();
}

/** The key whose secret hashes to `hash`, with its account's state; undefined if none. */
export async function findKeyByHash(
  db: Kysely<Database>,
  hash: string,
): Promise<KeyWithAccount | undefined> {
  return await db
    .selectFrom("api_keys")
    .innerJoin("accounts", "accounts.id", "api_keys.account_id")
    .selectAll("api_keys")
    .select([
      "accounts.name as account_name",
      "accounts.enabled as account_enabled",
      "accounts.unlimited as account_unlimited",
    ])
    .where("api_keys.hash", "=", hash)
    .executeTakeFirst();
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

/** How many keys exist, revoked ones included (first run creates one only when there are none). */
export async function countKeys(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("api_keys")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
