/**
 * What tollgate asks of a SQLite database, whichever driver serves it: the runtime's
 * own SQLite for a file (sqlite_file.ts), the libSQL client for a libSQL server
 * (libsql_server.ts). The libSQL client's `Client` fits `SqlClient` as it is.
 */
import type { Dialect } from "kysely";

/** A value bound to a statement's `?`. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** SQL with its arguments (or bare SQL without any). */
export type SqlStatement = string | { sql: string; args: SqlValue[] };

/** What a statement reports: rows changed, and rows for a query. */
export interface SqlResult {
  rowsAffected: number;
  rows: Record<string, unknown>[];
}

/** Statements one at a time, or several in one transaction. */
export interface SqlClient {
  execute(statement: SqlStatement): Promise<SqlResult>;
  batch(statements: SqlStatement[], mode: "write"): Promise<SqlResult[]>;
}

/**
 * Runs one write transaction in two rounds: the `reads` (which may also delete with
 * RETURNING), then the writes `decide` makes of their results; all commit, or none and
 * it throws. Resolves with the value `decide` returned beside its writes; `committed`
 * runs as soon as the commit succeeded, before anything else can use the database.
 */
export type RunTransaction = <T>(
  reads: SqlStatement[],
  decide: (results: SqlResult[]) => { writes: SqlStatement[]; value: T; committed?: () => void },
) => Promise<T>;

/**
 * Runs reads at once and synchronously, each in its own implicit read transaction: on a
 * file's connection nothing else can run in between.
 */
export type ReadNow = (statements: SqlStatement[]) => SqlResult[];

/**
 * How a file's database changed, for a cache of its rows: `own` counts the statements its
 * connection ran that may have written (counted as they run: no read), `others` reads its
 * data version, which counts the commits of every other connection to the file.
 */
export interface ChangeCounts {
  own(): number;
  others(): number;
}

/** An open SQLite database: its client, kysely's dialect for it, its write transactions. */
export interface SqliteConnection {
  client: SqlClient;
  /** A file's synchronous reads (not a libSQL server's, which answers over the network). */
  readNow?: ReadNow;
  /** A file's counts of changes (not a libSQL server's). */
  changes?: ChangeCounts;
  /** Kysely's dialect for it, built when the query builder is first needed. */
  dialect(): Promise<Dialect>;
  /** The transactions of the group-committed write path. */
  transaction: RunTransaction;
  close(): void | Promise<void>;
}
