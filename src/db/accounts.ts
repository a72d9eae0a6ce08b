/** Queries on accounts: create, find, top up, enable or disable, list. */
import type { Kysely } from "kysely";
import type { Account, Database } from "./schema.ts";

/** What `createAccount` needs; money in integer micro-USD. */
export interface NewAccount {
  name: string;
  balanceMicros: number;
  unlimited: boolean;
  /** Creation time in ms since the epoch; now by default. */
  createdAt?: number;
}

/** Inserts an account, enabled; returns undefined when the name is already taken. */
export async function createAccount(
  db: Kysely<Database>,
  account: NewAccount,
): Promise<Account | undefined> {
  // ON CONFLICT rather than a lookup first, so two concurrent creates cannot both pass.
  return await db
    .insertInto("accounts")
    .values({
      name: account.name,
      enabled: 1,
      unlimited: account.unlimited ? 1 : 0,
      balance_micros: account.balanceMicros,
      created_at: account.createdAt ?? Date.now(),
    })
    .onConflict((conflict) => conflict.column("name").doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The account of that name, or undefined. */
export async function findAccountByName(
  db: Kysely<Database>,
  name: string,
): Promise<Account | undefined> {
  return await db.selectFrom("accounts").selectAll().where("name", "=", name).executeTakeFirst();
}

/** Adds `micros` to the balance in one statement (safe against concurrent debits); undefined if no such account. */
export async function topUpAccount(
  db: Kysely<Database>,
  name: string,
  micros: number,
): Promise<Account | undefined> {
  return await db
    .updateTable("accounts")
    .set((eb) => ({ balance_micros: eb("balance_micros", "+", micros) }))
    .where("name", "=", name)
    .returningAll()
    .executeTakeFirst();
}

/** Enables or disables an account; returns false when there is no such account. */
export async function setAccountEnabled(
  db: Kysely<Database>,
  name: string,
  enabled: boolean,
): Promise<boolean> {
  const result = await db
    .updateTable("accounts")
    .set({ enabled: enabled ? 1 : 0 })
    .where("name", "=", name)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Every account, by name. */
export async function listAccounts(db: Kysely<Database>): Promise<Account[]> {
  return await db.selectFrom("accounts").selectAll().orderBy("name").execute();
}
