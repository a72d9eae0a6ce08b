/**
 * The database being unreachable, as a client sees it: a store's DatabaseUnavailableError
 * becomes the 503 `database_unavailable` of design.md's catalogue, with Retry-After.
 */
import { GatewayError } from "../errors.ts";
import { DatabaseUnavailableError } from "./store.ts";

/**
 * The 503 of a request that cannot be admitted because the database is unavailable: no
 * key can be checked nor any hold taken, so nothing is relayed. Clients may retry.
 */
export function databaseUnavailable(cause: unknown): GatewayError {
  return new GatewayError(
    503,
    "database_unavailable",
    "tollgate cannot reach its database, so it cannot check keys or hold the cost of this " +
      "request; nothing was sent upstream. Retry in a moment; if it persists, the operator " +
      "should check that the database in [database] url is up.",
    { cause, headers: { "retry-after": "1" } },
  );
}

/** A store's call, whose `DatabaseUnavailableError` becomes the 503 above. */
export async function unlessUnavailable<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw error instanceof DatabaseUnavailableError ? databaseUnavailable(error) : error;
  }
}
