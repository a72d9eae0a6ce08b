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
 * A statement needed only when the one before it changed no rows (a refusal's figures,
 * read after a conditional insert that did not happen). Runners that can look at each
 * result first (a file's prepared statements) skip it otherwise, and report it empty;
 * the others run it anyway.
 */
export interface ConditionalStatement {
  sql: string;
  args: SqlValue[];
  onlyIfPreviousChangedNothing: true;
}

/** Whether a statement is a `ConditionalStatement`. */
export function isConditional(statement: SqlStatement): statement is ConditionalStatement {
  return typeof statement === "object" && "onlyIfPreviousChangedNothing" in statement;
}

/** Runs statements in one transaction: all commit, or none and it throws. */
export type RunTransaction = (statements: SqlStatement[]) => SqlResult[] | Promise<SqlResult[]>;

/** An open SQLite database: its client, kysely's dialect for it, its write transactions. */
export interface SqliteConnection {
  client: SqlClient;
  /** Kysely's dialect for it, built when the query builder is first needed. */
  dialect(): Promise<Dialect>;
  /** The transactions of the group-committed write path. */
  transactions: RunTransaction;
  close(): void;
}
