/**
 * Multi-row INSERTs for the rows a SQLite batch writes (holds, ledger rows, rollups): a
 * statement's own cost (binding, stepping, resetting) is paid once for a few rows, not
 * once a row. Its own file because the holds' and the settlements' rows both use it.
 */
import { placeholders, type SqlStatement, type SqlValue } from "./sql_client.ts";

/** Rows a multi-row INSERT writes at most. */
const ROWS_PER_INSERT = 16;

/** `INSERT INTO {table} ({columns}) VALUES` with 1 to ROWS_PER_INSERT rows of placeholders. */
export function insertsOf(table: string, columns: string): readonly string[] {
  const row = `(${placeholders(columns.split(",").length)})`;
  return Array.from(
    { length: ROWS_PER_INSERT },
    (_, i) => `INSERT INTO ${table} (${columns}) VALUES ${Array(i + 1).fill(row).join(", ")}`,
  );
}

/** `rows` written by the fewest INSERTs of `sqls` (sqls[n - 1] writes n rows). */
export function inserts(sqls: readonly string[], rows: SqlValue[][]): SqlStatement[] {
  const statements: SqlStatement[] = [];
  for (let from = 0; from < rows.length; from += sqls.length) {
    const chunk = rows.slice(from, from + sqls.length);
    statements.push({ sql: sqls[chunk.length - 1]!, args: chunk.flat() });
  }
  return statements;
}
