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
  /** Keeps a response, and extends the expiry of the turns before it to its own. */
  insert(response: NewStoredResponse): Promise<void>;
  /** The account's live response with this id. */
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
  /** Removes up to `limit` responses expired before `now`; how many. */
  expire(now: number, limit: number): Promise<number>;
}

const INSERT_RESPONSE = `INSERT INTO stored_responses (id, account_id, key_id, model,
  created_at, expires_at, response, input_items, previous_response_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
/** Items written by one statement at most. */
const ITEMS_PER_INSERT = 50;
/**
 * The turns before a response that expire before it, extended to its expiry: a turn's
 * expiry is never before its continuations', so the walk stops at the first that lasts.
 */
const EXTEND_EARLIER_TURNS = `WITH RECURSIVE earlier (id, previous_response_id) AS (
    SELECT id, previous_response_id FROM stored_responses WHERE id = ? AND expires_at < ?
    UNION ALL
    SELECT r.id, r.previous_response_id FROM stored_responses r
      JOIN earlier ON r.id = earlier.previous_response_id WHERE r.expires_at < ?)
  UPDATE stored_responses SET expires_at = ? WHERE id IN (SELECT id FROM earlier)`;
const LIVE = "id = ? AND account_id = ? AND expires_at > ? AND deleted = 0";
const FIND = `SELECT * FROM stored_responses WHERE ${LIVE}`;
const CHAIN = `WITH RECURSIVE chain (depth, previous_response_id, response, input_items) AS (
    SELECT 0, previous_response_id, response, input_items FROM stored_responses WHERE ${LIVE}
    UNION ALL
    SELECT chain.depth + 1, r.previous_response_id, r.response, r.input_items
      FROM stored_responses r JOIN chain ON r.id = chain.previous_response_id)
  SELECT previous_response_id, response, input_items FROM chain ORDER BY depth DESC`;
const ITEM = `SELECT stored_items.item FROM stored_items
  JOIN stored_responses ON stored_responses.id = stored_items.response_id
  WHERE stored_items.account_id = ? AND stored_items.id = ? AND stored_responses.expires_at > ?`;
const CONTINUED = "EXISTS (SELECT 1 FROM stored_responses c WHERE c.previous_response_id = ?)";
// The items first, while their response still says whether it is the account's and live.
const REMOVE_ITEMS = `DELETE FROM stored_items WHERE response_id = ? AND EXISTS (
  SELECT 1 FROM stored_responses WHERE ${LIVE})`;
const KEEP_FOR_CONTINUATIONS = `UPDATE stored_responses SET deleted = 1 WHERE ${LIVE}
  AND ${CONTINUED}`;
const REMOVE = `DELETE FROM stored_responses WHERE ${LIVE} AND NOT ${CONTINUED}`;
const EXPIRED = "SELECT id FROM stored_responses WHERE expires_at <= ? LIMIT ?";

/** One response's statements: its row, its items, the expiry of the turns before it. */
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
  if (row.previous_response_id !== null) {
    const expires = row.expires_at;
    statements.push({
      sql: EXTEND_EARLIER_TURNS,
      args: [row.previous_response_id, expires, expires, expires],
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
      const { rows } = await client.execute({ sql: FIND, args: [id, accountId, now] });
      return rows[0] as StoredResponseRow | undefined;
    },
    async chain(accountId, id, now) {
      const { rows } = await client.execute({ sql: CHAIN, args: [id, accountId, now] });
      // The first turn links to nothing; one that links to a row gone is a broken chain.
      if (rows.length === 0 || rows[0]!.previous_response_id != null) return [];
      return rows as unknown as TurnRow[];
    },
    async items(accountId, ids, now) {
      const found = new Map<string, string>();
      // One prepared statement an id: a list of any length is the same SQL.
      for (const id of new Set(ids)) {
        const { rows } = await client.execute({ sql: ITEM, args: [accountId, id, now] });
        if (rows[0]) found.set(id, String(rows[0].item));
      }
      return found;
    },
    async remove(accountId, id, now) {
      const live = [id, accountId, now];
      const [, kept, removed] = await client.batch([
        { sql: REMOVE_ITEMS, args: [id, ...live] },
        { sql: KEEP_FOR_CONTINUATIONS, args: [...live, id] },
        { sql: REMOVE, args: [...live, id] },
      ]);
      return kept!.rowsAffected + removed!.rowsAffected > 0;
    },
    async expire(now, limit) {
      const { rows } = await client.execute({ sql: EXPIRED, args: [now, limit] });
      if (rows.length === 0) return 0;
      const ids = rows.map((row) => String(row.id));
      const list = placeholders(ids.length);
      // A response kept meanwhile is not expired: only these ids go, items with them.
      await client.batch([
        { sql: `DELETE FROM stored_items WHERE response_id IN (${list})`, args: ids },
        { sql: `DELETE FROM stored_responses WHERE id IN (${list})`, args: ids },
      ]);
      return ids.length;
    },
  };
}
