/**
 * What tollgate asks of a database in plain SQL, whichever driver serves it: the runtime's
 * own SQLite for a file (sqlite_file.ts), the libSQL client for a libSQL server
 * (libsql_server.ts), a pool of `pg` connections for PostgreSQL (postgres_client.ts).
 * Statements are written once with `?` placeholders; the PostgreSQL client numbers them.
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

/**
 * Statements one at a time, or several in one write transaction (all, or none and it
 * rejects). A database that cannot be reached rejects with DatabaseUnavailableError.
 */
export interface SqlClient {
  execute(statement: SqlStatement): Promise<SqlResult>;
  batch(statements: SqlStatement[]): Promise<SqlResult[]>;
}

/**
 * A write transaction in two rounds: its reads (which may also delete with RETURNING), then
 * the writes `decide` makes of what they returned. Deciding in plain code between the two
 * keeps it the same on a file, whose calls are synchronous, and on a server, which answers
 * each round over the network.
 */
export interface Step<T> {
  reads: SqlStatement[];
  /** `committed`, if given, runs as soon as the transaction committed, before anything else. */
  decide(results: SqlResult[]): { writes: SqlStatement[]; value: T; committed?: () => void };
}

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

/** An open SQLite database: its client, its write transactions, kysely's dialect. */
export interface SqliteConnection {
  client: SqlClient;
  /**
   * Runs a step as one write transaction, which holds SQLite's write lock from its start
   * (nothing else writes between its reads and its writes); resolves with its value once
   * committed, or rejects and writes nothing.
   */
  transaction<T>(step: Step<T>): Promise<T>;
  /** A file's synchronous reads (not a libSQL server's, which answers over the network). */
  readNow?: ReadNow;
  /** A file's counts of changes (not a libSQL server's). */
  changes?: ChangeCounts;
  /** Kysely's dialect for it, built when the query builder is first needed. */
  dialect(): Promise<Dialect>;
  close(): void | Promise<void>;
}

/** `count` placeholders for an `IN (...)` list: `?, ?, ?`. */
export function placeholders(count: number): string {
  return Array(count).fill("?").join(", ");
}
