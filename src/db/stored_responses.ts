/**
 * The stored responses' rows (stored/ decides what goes in them): one row a response, with
 * its resolved input, and one row an item, for `item_reference`. Every read names the
 * account: another account's id is not found, as a deleted or expired one is not.
 */
import type { Kysely } from "kysely";
import type { Database, StoredResponseRow } from "./schema.ts";

/** A response to keep, with its items by id. */
export interface NewStoredResponse {
  row: StoredResponseRow;
  /** Items this response added (its new input and its output), as [id, JSON text]. */
  items: [string, string][];
}

/** Reads and writes of stored responses. */
export interface StoredResponseRows {
  insert(response: NewStoredResponse): Promise<void>;
  /** The account's live response with this id. */
  find(accountId: number, id: string, now: number): Promise<StoredResponseRow | undefined>;
  /** The account's items of these ids (of live responses), as JSON text by id. */
  items(accountId: number, ids: string[], now: number): Promise<Map<string, string>>;
  /** Removes the account's response with this id (and its items); whether there was one. */
  remove(accountId: number, id: string, now: number): Promise<boolean>;
  /** Removes up to `limit` responses expired before `now`; how many. */
  expire(now: number, limit: number): Promise<number>;
}

/** The rows of stored responses over a query builder. */
export function storedResponseRows(db: Kysely<Database>): StoredResponseRows {
  return {
    async insert({ row, items }) {
      await db.transaction().execute(async (tx) => {
        await tx.insertInto("stored_responses").values(row).execute();
        // An item may come again (a client sending an earlier item whole): the first stays.
        for (let at = 0; at < items.length; at += 200) {
          await tx.insertInto("stored_items")
            .values(
              items.slice(at, at + 200).map(([id, item]) => ({
                account_id: row.account_id,
                id,
                response_id: row.id,
                item,
              })),
            )
            .onConflict((conflict) => conflict.columns(["account_id", "id"]).doNothing())
            .execute();
        }
      });
    },
    find: (accountId, id, now) =>
      db.selectFrom("stored_responses").selectAll()
        .where("id", "=", id)
        .where("account_id", "=", accountId)
        .where("expires_at", ">", now)
        .executeTakeFirst(),
    async items(accountId, ids, now) {
      const found = new Map<string, string>();
      for (let at = 0; at < ids.length; at += 200) {
        const rows = await db.selectFrom("stored_items")
          .innerJoin("stored_responses", "stored_responses.id", "stored_items.response_id")
          .select(["stored_items.id", "stored_items.item"])
          .where("stored_items.account_id", "=", accountId)
          .where("stored_items.id", "in", ids.slice(at, at + 200))
          .where("stored_responses.expires_at", ">", now)
          .execute();
        for (const row of rows) found.set(row.id, row.item);
      }
      return found;
    },
    remove: (accountId, id, now) =>
      db.transaction().execute(async (tx) => {
        const removed = await tx.deleteFrom("stored_responses")
          .where("id", "=", id)
          .where("account_id", "=", accountId)
          .where("expires_at", ">", now)
          .executeTakeFirst();
        if (removed.numDeletedRows === 0n) return false;
        await tx.deleteFrom("stored_items").where("response_id", "=", id).execute();
        return true;
      }),
    expire: (now, limit) =>
      db.transaction().execute(async (tx) => {
        const expired = await tx.selectFrom("stored_responses").select("id")
          .where("expires_at", "<=", now)
          .limit(limit)
          .execute();
        if (expired.length === 0) return 0;
        const ids = expired.map((row) => row.id);
        await tx.deleteFrom("stored_items").where("response_id", "in", ids).execute();
        await tx.deleteFrom("stored_responses").where("id", "in", ids).execute();
        return ids.length;
      }),
  };
}
