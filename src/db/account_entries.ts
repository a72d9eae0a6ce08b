/**
 * Money moved by hand: top-ups and adjustments (refunds, credits), each in one transaction
 * with its entry in `account_entries` (kind, signed amount, reason, the balance after), so
 * an account's history is what moved its balance. And a budget's own setting.
 */
import { type Kysely, PostgresAdapter, type Transaction } from "kysely";
import type { Account, Database } from "./schema.ts";

/** One entry of an account's history. */
export interface AccountEntry {
  created_at: number;
  kind: string;
  usd_micros: number;
  reason: string | null;
  balance_micros: number;
}

/** What a top-up or adjustment did: the account after it, or why nothing moved. */
export type MoveResult =
  | { ok: true; account: Account }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "below_zero"; account: Account };

/**
 * Adds `micros` (signed) to an account's balance, never below what its holds need (so never
 * below zero), and records the entry. An unlimited account is never debited: its balance
 * stays, its entry is recorded. `floorAfter` gives the lowest `balance.low` floor still
 * announced once the balance moved (budget_thresholds.ts `rearmFloors`).
 */
export async function moveBalance(
  db: Kysely<Database>,
  move: {
    name: string;
    kind: "topup" | "adjust";
    micros: number;
    reason: string | null;
    at: number;
    floorAfter?: (available: number, announced: number | null) => number | null;
  },
): Promise<MoveResult> {
  return await db.transaction().execute(async (trx): Promise<MoveResult> => {
    const found = await lockAccount(trx, move.name);
    if (!found) return { ok: false, reason: "not_found" };
    const moves = found.unlimited === 0 ? move.micros : 0;
    if (found.balance_micros + moves < found.held_micros && moves < 0) {
      return { ok: false, reason: "below_zero", account: found };
    }
    const balance = found.balance_micros + moves;
    const floor = move.floorAfter
      ? move.floorAfter(balance, found.balance_alert_floor_micros)
      : found.balance_alert_floor_micros;
    const account = await trx.updateTable("accounts")
      .set((eb) => ({
        balance_micros: eb("balance_micros", "+", moves),
        balance_alert_floor_micros: floor,
      }))
      .where("id", "=", found.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx.insertInto("account_entries").values({
      account_id: found.id,
      created_at: move.at,
      kind: move.kind,
      usd_micros: move.micros,
      reason: move.reason,
      balance_micros: account.balance_micros,
    }).execute();
    return { ok: true, account };
  });
}

/** The account row, locked for the transaction's update on PostgreSQL. */
async function lockAccount(trx: Transaction<Database>, name: string) {
  const query = trx.selectFrom("accounts").selectAll().where("name", "=", name);
  // SQLite's transaction holds the file's write lock from its first write: no two interleave.
  const isPostgres = trx.getExecutor().adapter instanceof PostgresAdapter;
  return await (isPostgres ? query.forUpdate() : query).executeTakeFirst();
}

/** An account's entries, oldest first. */
export async function accountEntries(
  db: Kysely<Database>,
  accountId: number,
): Promise<AccountEntry[]> {
  return await db.selectFrom("account_entries")
    .select(["created_at", "kind", "usd_micros", "reason", "balance_micros"])
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
}

/** Sets an account's own budget columns; false when there is no such account. */
export async function setAccountBudget(
  db: Kysely<Database>,
  name: string,
  columns: {
    budget_mode: string | null;
    budget_micros: number | null;
    budget_period: string | null;
  },
): Promise<boolean> {
  const result = await db.updateTable("accounts").set(columns).where("name", "=", name)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
