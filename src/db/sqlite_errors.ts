/**
 * Which SQLite errors mean "not now" rather than a bug, for a file (the runtime's SQLite)
 * and a libSQL server (the libSQL client) alike.
 */
import { DatabaseUnavailableError } from "./store.ts";

/**
 * Result codes that mean "not now": the file is locked past the busy timeout, cannot be
 * opened or written (disk full, I/O error), or the server is gone.
 */
const UNAVAILABLE =
  /^(SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|PROTOCOL)|SERVER_ERROR|HRANA_)/;
/**
 * The same conditions as the runtime's SQLite words them: its errors all carry the
 * code `ERR_SQLITE_ERROR` and SQLite's own message for the result code.
 */
const UNAVAILABLE_MESSAGE =
  /^(database is locked|database table is locked|disk I\/O error|unable to open database file|database or disk is full|attempt to write a readonly database|locking protocol)/;

/** Whether a driver error means the database is unavailable (see UNAVAILABLE). */
export function isSqliteUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ERR_SQLITE_ERROR") {
    return error instanceof Error && UNAVAILABLE_MESSAGE.test(error.message);
  }
  if (typeof code === "string") return UNAVAILABLE.test(code);
  // Network failures toward a libSQL server surface as fetch's TypeError.
  return error instanceof TypeError && /fetch|network|connect/i.test(error.message);
}

/** A driver error as the client rejects with it: DatabaseUnavailableError when it is one. */
export function sqliteFailure(error: unknown): unknown {
  return isSqliteUnavailable(error) && !(error instanceof DatabaseUnavailableError)
    ? new DatabaseUnavailableError(error)
    : error;
}
