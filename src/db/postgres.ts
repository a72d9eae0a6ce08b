/** Opens a PostgreSQL database (`postgres://` or `postgresql://` URL) as a `ServingDb`. */
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { isPostgresUnavailable, postgresClient } from "./postgres_client.ts";
import { migratePostgres } from "./postgres_migrate.ts";
import { createPostgresStore } from "./postgres_store.ts";
import type { Database } from "./schema.ts";
import type { ServingDb } from "./serving_db.ts";
import { storedResponseRows } from "./stored_responses.ts";

/** Connections per process: holds and settlements are short calls, a few go a long way. */
const POOL_SIZE = 16;

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * BIGINT columns (micro-USD, tokens, milliseconds) and SUMs of them as numbers, as the
 * SQLite side returns them: every value tollgate stores is far below 2^53.
 */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (text: string) => Number(text);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/**
 * Opens a pool of connections to the database at `url`. Nothing connects until the first
 * query, and a connection lost later is replaced by the next query: a database that comes
 * back is used again without a restart.
 */
export function openPostgres(url: string): ServingDb {
  const pool = new pg.Pool({
    connectionString: url,
    max: POOL_SIZE,
    types,
    // A database that does not answer fails requests with 503 instead of queueing them.
    connectionTimeoutMillis: 5_000,
    query_timeout: 30_000,
    keepAlive: true,
    application_name: "tollgate",
  });
  // An idle connection that breaks (the server restarted) is dropped by the pool; without
  // a listener its error event would end the process.
  pool.on("error", () => {});
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const client = postgresClient(pool);
  const storedResponses = storedResponseRows(client, client.batch);
  return {
    kind: "postgres",
    client,
    queries: () => Promise.resolve(kysely),
    storedResponses: () => Promise.resolve(storedResponses),
    store: createPostgresStore(client),
    isUnavailable: isPostgresUnavailable,
    migrate: () => migratePostgres(pool),
    // Destroying kysely ends the pool.
    close: () => kysely.destroy(),
  };
}
