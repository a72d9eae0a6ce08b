/**
 * An embedded SQLite file through the runtime's own SQLite (`node:sqlite`). Its calls
 * are synchronous, so one connection serves the query builder, the store's statements and
 * its write transactions, and a transaction never interleaves with anything: it runs from
 * BEGIN to COMMIT in one call (kysely's own transactions span awaits: nothing may use them
 * on this connection). Against libSQL's native driver it runs a statement faster and
 * keeps the driver's native library and client code out of the process (bench/README.md
 * has the measurements).
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { Dialect, SqliteStatement } from "kysely";
import type {
  ChangeCounts,
  SqlClient,
  SqliteConnection,
  SqlResult,
  SqlStatement,
  SqlValue,
  Step,
} from "./sql_client.ts";
import { sqliteFailure } from "./sqlite_errors.ts";
import { startWalSync } from "./wal_sync.ts";

/** Distinct statements kept prepared; past this (queries with long `IN` lists) the cache restarts. */
const PREPARED_LIMIT = 256;

interface Prepared {
  statement: StatementSync;
  /** Whether it returns rows (a query, or a write with RETURNING). */
  reader: boolean;
  /** Whether it may write: anything but a SELECT is taken to. */
  writes: boolean;
}

const SELECT = /^\s*select\b/i;

/** Opens (creating if needed) the SQLite file at `path`, in WAL mode. */
export function openSqliteFile(path: string): SqliteConnection {
  const db = new DatabaseSync(path);
  // WAL lets the CLI write while the server reads; NORMAL sync is durable across a
  // process crash (kill -9), which is what holds and settlements must survive.
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA foreign_keys = ON");
  // Each checkpoint syncs the file; every request writes a few pages, so the default
  // (1,000 pages) checkpointed every hundred or so requests: ten times fewer checkpoints,
  // each of a longer log (wal_sync.ts syncs it in the background).
  db.exec("PRAGMA wal_autocheckpoint = 10000");
  // A multi-row INSERT in a batch keeps the pages it changes in a statement journal, to
  // undo itself alone. Past 64 KiB that journal spills to a temporary file, and from then
  // on every page a later statement of the transaction changes is two more system calls
  // (a settlement batch spills, bench/README.md). In memory it is a copy.
  db.exec("PRAGMA temp_store = MEMORY");

  /** Statements run that may have written: this connection's changes, counted without a read. */
  let ownWrites = 0;
  const cache = new Map<string, Prepared>();
  const prepared = (sql: string): Prepared => {
    let entry = cache.get(sql);
    if (!entry) {
      if (cache.size >= PREPARED_LIMIT) cache.clear();
      const statement = db.prepare(sql);
      entry = { statement, reader: statement.columns().length > 0, writes: !SELECT.test(sql) };
      cache.set(sql, entry);
    }
    if (entry.writes) ownWrites++;
    return entry;
  };
  const dataVersion = db.prepare("PRAGMA data_version");
  const changes: ChangeCounts = {
    own: () => ownWrites,
    others: () => Number(dataVersion.get()!.data_version),
  };
  const runOne = (sql: string, args: readonly SqlValue[]): SqlResult => {
    const { statement, reader } = prepared(sql);
    return reader
      ? { rowsAffected: 0, rows: statement.all(...args) as Record<string, unknown>[] }
      : { rowsAffected: Number(statement.run(...args).changes), rows: [] };
  };
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");

  const run = (statement: SqlStatement): SqlResult =>
    typeof statement === "string" ? runOne(statement, []) : runOne(statement.sql, statement.args);
  // Synchronous from BEGIN to COMMIT: nothing else runs on the connection in between.
  const inTransaction = <T>(work: () => T): T => {
    begin.run();
    try {
      const value = work();
      commit.run();
      return value;
    } catch (error) {
      if (db.isTransaction) rollback.run();
      throw error;
    }
  };
  const client: SqlClient = {
    execute: (statement) => attempt(() => run(statement)),
    batch: (statements) => attempt(() => inTransaction(() => statements.map(run))),
  };
  // An in-memory database has no log to sync.
  const walSync = path === ":memory:" ? undefined : startWalSync(`${path}-wal`, () => ownWrites);
  let open = true;
  return {
    client,
    transaction: <T>({ reads, decide }: Step<T>) =>
      attempt(() => {
        const decided = inTransaction(() => {
          const decided = decide(reads.map(run));
          for (const statement of decided.writes) run(statement);
          return decided;
        });
        decided.committed?.();
        return decided.value;
      }),
    readNow: (statements) => statements.map(run),
    changes,
    // kysely loads only for the query builder (see database.ts).
    dialect: async (): Promise<Dialect> =>
      new (await import("kysely")).SqliteDialect({
        database: {
          // The connection outlives kysely's destroy: `close` below ends it.
          close() {},
          prepare: (sql) => kyselyStatement(prepared(sql)),
        },
      }),
    async close() {
      if (!open) return;
      open = false;
      await walSync?.close();
      db.close();
    },
  };
}

/** The driver's rows as plain objects, and kysely's parameter arrays spread. */
function kyselyStatement({ statement, reader }: Prepared): SqliteStatement {
  return {
    reader,
    all: (parameters) => statement.all(...bind(parameters)).map((row) => ({ ...row })),
    run: (parameters) => statement.run(...bind(parameters)),
    iterate: (parameters) => statement.iterate(...bind(parameters)),
  };
}

/** Kysely's values as the driver binds them: booleans become 0/1, as in the libSQL client. */
function bind(parameters: readonly unknown[]): SqlValue[] {
  return parameters.map((value) => typeof value === "boolean" ? Number(value) : value as SqlValue);
}

/**
 * Runs synchronous work as a promise, a throw becoming a rejection (an unavailable file's
 * as DatabaseUnavailableError).
 */
function attempt<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(sqliteFailure(error));
  }
}
