/**
 * The stored responses' rows (stored/ decides what goes in them), in plain SQL that SQLite
 * and PostgreSQL both run: one row a response, with the input items its own turn added and
 * a link to the turn before (`previous_response_id`), and one row an item, for
 * `item_reference`. A conversation is its chain of rows, read in one recursive query, so
 * that what is stored grows with the turns, not with their square. Every read names the
 * account: another account's id is not found, as a deleted or expired one is not.
 */
import type { StoredResponseRow } from "./schema.ts";
import { placeholders, type SqlClient, type SqlStatement } from "./sql_client.ts";

/** A response to keep, with its items by id. */
export interface NewStoredResponse {
  row: Omit<StoredResponseRow, "deleted">;
  /** Items this response added (its new input and its output), as [id, JSON text]. */
  items: [string, string][];
}

/** One turn of a conversation as the chain read returns it. */
export interface TurnRow {
  /** The response object as the client got it (JSON). */
  response: string;
  /** The input items this turn added (a JSON array); a turn stored before 010, all of them. */
  input_items: string;
}

/** Reads and writes of stored responses. */
export interface StoredResponseRows {
  /** Keeps a response; the turns before it then last as long as it does. */
  insert(response: NewStoredResponse): Promise<void>;
  /**
   * The account's live response with this id: before its expiry, or before that of a turn
   * that continues it.
   */
  find(accountId: number, id: string, now: number): Promise<StoredResponseRow | undefined>;
  /**
   * The account's live response with this id and every turn before it, the first turn
   * first; empty when the response is not found or the turns before it are gone (a turn
   * deleted while its continuation was answered).
   */
  chain(accountId: number, id: string, now: number): Promise<TurnRow[]>;
  /** The account's items of these ids (of live responses), as JSON text by id. */
  items(accountId: number, ids: string[], now: number): Promise<Map<string, string>>;
  /**
   * Removes the account's response with this id and the items it added; whether there was
   * one. A response that later turns continue stays for them, found no more.
   */
  remove(accountId: number, id: string, now: number): Promise<boolean>;
  /**
   * Removes up to `limit` responses expired before `now` and not continued by a live turn;
   * how many. One that is continued takes its latest continuation's expiry instead.
   */
  expire(now: number, limit: number): Promise<number>;
}

const INSERT_RESPONSE = `INSERT INTO stored_responses (id, account_id, key_id, model,
  created_at, expires_at, response, input_items, previous_response_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** Items written by one statement at most. */
const ITEMS_PER_INSERT = 50;
/**
 * The latest expiry among the turns that continue a response, however far on (`?`: its id).
 * A turn lasts as long as its latest continuation: storing a turn extends the turns before
 * it to its own expiry. That is read here, when a turn's own expiry has passed, rather than
 * written into every turn before it at each turn, which made keeping the 200th turn of a
 * chain 200 writes.
 */
const CONTINUED_UNTIL = `WITH RECURSIVE later (id, expires_at) AS (
    SELECT id, expires_at FROM stored_responses WHERE previous_response_id = ?
    UNION ALL
    SELECT r.id, r.expires_at FROM stored_responses r
      JOIN later ON r.previous_response_id = later.id)
  SELECT max(expires_at) AS until FROM later`;
/** A live response of the account: `?`s for its id, the account, now, its id again, now. */
const LIVE = `id = ? AND account_id = ? AND deleted = 0 AND (expires_at > ?
  OR (${CONTINUED_UNTIL}) > ?)`;
const FIND = `SELECT * FROM stored_responses WHERE ${LIVE}`;
const CHAIN = `WITH RECURSIVE chain (depth, previous_response_id, response, input_items) AS (
    SELECT 0, previous_response_id, response, input_items FROM stored_responses WHERE ${LIVE}
    UNION ALL
    SELECT chain.depth + 1, r.previous_response_id, r.response, r.input_items
      FROM stored_responses r JOIN chain ON r.id = chain.previous_response_id)
  SELECT previous_response_id, response, input_items FROM chain ORDER BY depth DESC`;
const ITEM = `SELECT stored_items.item, stored_items.response_id, stored_responses.expires_at
  FROM stored_items JOIN stored_responses ON stored_responses.id = stored_items.response_id
  WHERE stored_items.account_id = ? AND stored_items.id = ? AND stored_responses.deleted = 0`;
const CONTINUED = "EXISTS (SELECT 1 FROM stored_responses c WHERE c.previous_response_id = ?)";
// The items first, while their response still says whether it is the account's and live.
const REMOVE_ITEMS = `DELETE FROM stored_items WHERE response_id = ? AND EXISTS (
  SELECT 1 FROM stored_responses WHERE ${LIVE})`;
const KEEP_FOR_CONTINUATIONS = `UPDATE stored_responses SET deleted = 1 WHERE ${LIVE}
  AND ${CONTINUED}`;
const REMOVE = `DELETE FROM stored_responses WHERE ${LIVE} AND NOT ${CONTINUED}`;
const PAST_OWN_EXPIRY = "SELECT id FROM stored_responses WHERE expires_at <= ? LIMIT ?";
const EXTEND = "UPDATE stored_responses SET expires_at = ? WHERE id = ?";

/** The arguments of LIVE. */
function live(id: string, accountId: number, now: number) {
  return [id, accountId, now, id, now];
}

/** One response's statements: its row, then its items. */
function insertStatements({ row, items }: NewStoredResponse): SqlStatement[] {
  const statements: SqlStatement[] = [{
    sql: INSERT_RESPONSE,
    args: [
      row.id,
      row.account_id,
      row.key_id,
      row.model,
      row.created_at,
      row.expires_at,
      row.response,
      row.input_items,
      row.previous_response_id,
    ],
  }];
  for (let at = 0; at < items.length; at += ITEMS_PER_INSERT) {
    const chunk = items.slice(at, at + ITEMS_PER_INSERT);
    statements.push({
      // An item may come again (a client sending an earlier item whole): the first stays.
      sql: `INSERT INTO stored_items (account_id, id, response_id, item) VALUES ${
        chunk.map(() => "(?, ?, ?, ?)").join(", ")
      } ON CONFLICT (account_id, id) DO NOTHING`,
      args: chunk.flatMap(([id, item]) => [row.account_id, id, row.id, item]),
    });
  }
  return statements;
}

/**
 * The rows on `client`; `write` runs one response's statements in one transaction (the
 * client's `batch`, or a group commit of several responses' batches, write_queue.ts).
 */
export function storedResponseRows(
  client: SqlClient,
  write: (statements: SqlStatement[]) => Promise<unknown>,
): StoredResponseRows {
  return {
    async insert(response) {
      await write(insertStatements(response));
    },
    async find(accountId, id, now) {
      const { rows } = await client.execute({ sql: FIND, args: live(id, accountId, now) });
      return rows[0] as StoredResponseRow | undefined;
    },
    async chain(accountId, id, now) {
      const { rows } = await client.execute({ sql: CHAIN, args: live(id, accountId, now) });
      // The first turn links to nothing; one that links to a row gone is a broken chain.
      if (rows.length === 0 || rows[0]!.previous_response_id != null) return [];
      return rows as unknown as TurnRow[];
    },
    async items(accountId, ids, now) {
      const found = new Map<string, string>();
      // One prepared statement an id: a list of any length is the same SQL.
      for (const id of new Set(ids)) {
        const [row] = (await client.execute({ sql: ITEM, args: [accountId, id] })).rows;
        if (!row) continue;
        if (Number(row.expires_at) <= now) {
          // Past its own expiry, its response lives on while a continuation does.
          const args = [String(row.response_id)];
          const [later] = (await client.execute({ sql: CONTINUED_UNTIL, args })).rows;
          if (!(Number(later?.until ?? 0) > now)) continue;
        }
        found.set(id, String(row.item));
      }
      return found;
    },
    async remove(accountId, id, now) {
      const [, kept, removed] = await client.batch([
        { sql: REMOVE_ITEMS, args: [id, ...live(id, accountId, now)] },
        { sql: KEEP_FOR_CONTINUATIONS, args: [...live(id, accountId, now), id] },
        { sql: REMOVE, args: [...live(id, accountId, now), id] },
      ]);
      return kept!.rowsAffected + removed!.rowsAffected > 0;
    },
    async expire(now, limit) {
      const { rows } = await client.execute({ sql: PAST_OWN_EXPIRY, args: [now, limit] });
      const expired: string[] = [];
      const writes: SqlStatement[] = [];
      for (const row of rows) {
        const id = String(row.id);
        const [later] = (await client.execute({ sql: CONTINUED_UNTIL, args: [id] })).rows;
        const until = Number(later?.until ?? 0);
        // A turn continued by a live one takes its expiry, found here once.
        if (until > now) writes.push({ sql: EXTEND, args: [until, id] });
        else expired.push(id);
      }
      if (expired.length > 0) {
        const list = placeholders(expired.length);
        // A response kept meanwhile is not expired: only these ids go, items with them.
        writes.push(
          { sql: `DELETE FROM stored_items WHERE response_id IN (${list})`, args: expired },
          { sql: `DELETE FROM stored_responses WHERE id IN (${list})`, args: expired },
        );
      }
      if (writes.length > 0) await client.batch(writes);
      return expired.length;
    },
  };
}
