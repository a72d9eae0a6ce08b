/**
 * Transactions on a SQLite file through the `libsql` driver directly, with prepared
 * statements kept for reuse. The request path writes the same few statements for
 * every request; the client re-parses each one on every call, which cost ~20 times
 * more than running a prepared statement (see bench/README.md).
 */
import Database from "libsql";
import type { InValue } from "@libsql/client";
import { isConditional, type RunTransaction, type WriteResult } from "./write_queue.ts";

/** The part of the driver's statement this file uses. */
interface Prepared {
  reader: boolean;
  run(...params: unknown[]): { changes: number };
  all(...params: unknown[]): unknown[];
}

/** A prepared-statement transaction runner on a SQLite file, and how to close it. */
export interface LocalTransactions {
  run: RunTransaction;
  close(): void;
}

/** Opens a second connection to a `file:` database for the write path. */
export function openLocalTransactions(path: string): LocalTransactions {
  const db = new Database(path);
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  // Each checkpoint syncs the file; every request writes a few pages, so the default
  // (1,000 pages) checkpointed every hundred or so requests. ~40 MB of WAL between them.
  db.exec("PRAGMA wal_autocheckpoint = 10000");
  const statements = new Map<string, Prepared>();
  const prepared = (sql: string): Prepared => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare<unknown[]>(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");

  const run: RunTransaction = (batch) => {
    begin.run();
    try {
      const results: WriteResult[] = [];
      for (const statement of batch) {
        const previous = results[results.length - 1];
        if (isConditional(statement) && previous && previous.rowsAffected > 0) {
          results.push({ rowsAffected: 0, rows: [] });
          continue;
        }
        const { sql, args } = typeof statement === "string"
          ? { sql: statement, args: [] as InValue[] }
          : statement;
        const prepare = prepared(sql);
        const values = (Array.isArray(args) ? args : []) as unknown[];
        results.push(
          prepare.reader
            ? { rowsAffected: 0, rows: prepare.all(...values) as Record<string, unknown>[] }
            : { rowsAffected: prepare.run(...values).changes, rows: [] },
        );
      }
      commit.run();
      return results;
    } catch (error) {
      if (db.inTransaction) rollback.run();
      throw error;
    }
  };
  return { run, close: () => db.close() };
}
