/**
 * The stored responses' rows on SQLite (a file, or a libSQL server), in plain SQL on the
 * store's connection: no query builder while serving. The responses kept in one turn of
 * the event loop commit in one transaction (group commit, write_queue.ts), and each
 * keeper waits for its own commit: an id a client was answered is found by its next
 * request. A transaction of its own for each response cost most of a busy gateway's
 * throughput (bench/README.md, "Stored responses").
 */
import type { StoredResponseRow } from "./schema.ts";
import type { SqlClient, SqlStatement } from "./sql_client.ts";
import type { NewStoredResponse, StoredResponseRows } from "./stored_responses.ts";
import { createBatchQueue } from "./write_queue.ts";

const INSERT_RESPONSE = `INSERT INTO stored_responses
  (id, account_id, key_id, model, created_at, expires_at, response, input_items)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
// An item may come again (a client sending an earlier item whole): the first stays.
const INSERT_ITEM = `INSERT INTO stored_items (account_id, id, response_id, item)
  VALUES (?, ?, ?, ?) ON CONFLICT (account_id, id) DO NOTHING`;
const FIND = `SELECT * FROM stored_responses WHERE id = ? AND account_id = ? AND expires_at > ?`;
const ITEM = `SELECT stored_items.item FROM stored_items
  JOIN stored_responses ON stored_responses.id = stored_items.response_id
  WHERE stored_items.account_id = ? AND stored_items.id = ? AND stored_responses.expires_at > ?`;
// The items first, while their response still says whether it is the account's and live.
const REMOVE_ITEMS = `DELETE FROM stored_items WHERE response_id = ? AND EXISTS (
  SELECT 1 FROM stored_responses WHERE id = ? AND account_id = ? AND expires_at > ?)`;
const REMOVE = `DELETE FROM stored_responses WHERE id = ? AND account_id = ? AND expires_at > ?`;
const EXPIRED = `SELECT id FROM stored_responses WHERE expires_at <= ? LIMIT ?`;

/** One response's statements: its row, then its items. */
function insertStatements({ row, items }: NewStoredResponse): SqlStatement[] {
  return [
    {
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
      ],
    },
    ...items.map(([id, item]): SqlStatement => ({
      sql: INSERT_ITEM,
      args: [row.account_id, id, row.id, item],
    })),
  ];
}

/**
 * The rows on `client`; `retryAlone` says whether a failed batch's responses are worth
 * writing one by one (not when the database is unavailable: each would fail alike).
 */
export function sqliteStoredResponseRows(
  client: SqlClient,
  retryAlone: (error: unknown) => boolean,
): StoredResponseRows {
  const write = createBatchQueue(
    (statements: SqlStatement[]) => client.batch(statements, "write"),
    { retryAlone },
  );
  return {
    async insert(response) {
      await write(insertStatements(response));
    },
    async find(accountId, id, now) {
      const { rows } = await client.execute({ sql: FIND, args: [id, accountId, now] });
      return rows[0] as StoredResponseRow | undefined;
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
      const [, removed] = await client.batch([
        { sql: REMOVE_ITEMS, args: [id, id, accountId, now] },
        { sql: REMOVE, args: [id, accountId, now] },
      ], "write");
      return removed!.rowsAffected > 0;
    },
    async expire(now, limit) {
      const { rows } = await client.execute({ sql: EXPIRED, args: [now, limit] });
      if (rows.length === 0) return 0;
      const ids = rows.map((row) => String(row.id));
      const list = ids.map(() => "?").join(", ");
      // A response kept meanwhile is not expired: only these ids go, items with them.
      await client.batch([
        { sql: `DELETE FROM stored_items WHERE response_id IN (${list})`, args: ids },
        { sql: `DELETE FROM stored_responses WHERE id IN (${list})`, args: ids },
      ], "write");
      return ids.length;
    },
  };
}
