/**
 * A pool of PostgreSQL connections as a SqlClient: statements written for SQLite with `?`
 * placeholders run here numbered (`$1`, `$2`, ...), each prepared once per connection, and
 * a batch is one transaction on one connection.
 */
import type { Pool, PoolClient } from "pg";
import type { SqlClient, SqlResult, SqlStatement, SqlValue } from "./sql_client.ts";
import { DatabaseUnavailableError } from "./store.ts";

/**
 * SQLSTATE classes that mean "not now" rather than a bug: connection exception (08),
 * authorization (28: a configuration matter, not the client's), transaction rollback (40:
 * a deadlock victim, which the lock order makes rare), insufficient resources (53),
 * operator intervention such as a shutdown or a statement timeout (57), system error (58).
 */
const UNAVAILABLE_CLASSES = new Set(["08", "28", "40", "53", "57", "58"]);

/** Distinct statements given a name (prepared once per connection); past this, unnamed. */
const NAMED_LIMIT = 256;

/** The SQLSTATE class of a server error; undefined for the driver's own (connection) errors. */
export function sqlstateClass(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code.slice(0, 2) : undefined;
}

/** Whether a driver error means the database is unavailable. */
export function isPostgresUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const sqlstate = sqlstateClass(error);
  // Anything the driver raises without a SQLSTATE is about the connection (refused,
  // reset, timed out, terminated).
  return sqlstate === undefined || UNAVAILABLE_CLASSES.has(sqlstate);
}

/** A driver error as the client rejects with it: DatabaseUnavailableError when it is one. */
function failure(error: unknown): unknown {
  return isPostgresUnavailable(error) && !(error instanceof DatabaseUnavailableError)
    ? new DatabaseUnavailableError(error)
    : error;
}

/** `sql` with its `?` placeholders numbered as PostgreSQL's (`$1`, `$2`, ...). */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The pool as a SqlClient. */
export function postgresClient(pool: Pool): SqlClient {
  const names = new Map<string, { text: string; name?: string }>();
  const query = async (on: Pool | PoolClient, statement: SqlStatement): Promise<SqlResult> => {
    const [sql, args]: [string, SqlValue[]] = typeof statement === "string"
      ? [statement, []]
      : [statement.sql, statement.args];
    let known = names.get(sql);
    if (!known) {
      known = {
        text: numbered(sql),
        name: names.size < NAMED_LIMIT ? `q${names.size}` : undefined,
      };
      names.set(sql, known);
    }
    const result = await on.query({ text: known.text, name: known.name, values: args });
    return { rowsAffected: result.rowCount ?? 0, rows: result.rows };
  };
  return {
    async execute(statement) {
      try {
        return await query(pool, statement);
      } catch (error) {
        throw failure(error);
      }
    },
    async batch(statements) {
      let connection: PoolClient | undefined;
      let broken = false;
      try {
        connection = await pool.connect();
        await connection.query("BEGIN");
        const results = [];
        for (const statement of statements) results.push(await query(connection, statement));
        await connection.query("COMMIT");
        return results;
      } catch (error) {
        broken = !(await connection?.query("ROLLBACK").then(() => true, () => false));
        throw failure(error);
      } finally {
        // A connection whose rollback failed may be broken: the pool drops it.
        connection?.release(broken);
      }
    },
  };
}
