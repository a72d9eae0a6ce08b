/**
 * An open database, whichever kind it is: what database.ts hands out and each kind's
 * opener (postgres.ts, database.ts for SQLite) builds.
 */
import type { Kysely } from "kysely";
import type { MigrationResult } from "./migrate.ts";
import type { Database } from "./schema.ts";
import type { SqlClient } from "./sql_client.ts";
import type { Store } from "./store.ts";
import type { StoredResponseRows } from "./stored_responses.ts";

/** Which SQL a database speaks: SQLite (files and libSQL servers) or PostgreSQL. */
export type DatabaseKind = "sqlite" | "postgres";

/** An open database as `tollgate serve` uses it: the store at once, the query builder on demand. */
export interface ServingDb {
  kind: DatabaseKind;
  /** Holds, settlement, key lookup, instances and recovery, atomic in the database. */
  store: Store;
  /** Plain SQL with `?` placeholders, the same on every dialect (the store runs on it). */
  client: SqlClient;
  /** Whether an error of this database means it is unavailable for now (not a bug). */
  isUnavailable(error: unknown): boolean;
  /** Applies this dialect's embedded migrations not applied yet. */
  migrate(): Promise<MigrationResult>;
  /**
   * The typed query builder, loaded by the first call: a gateway on a SQLite file serves
   * through the store alone and never loads it (its memory is not paid); a first start
   * makes its key in plain SQL (first_key.ts).
   */
  queries(): Promise<Kysely<Database>>;
  /** The rows of stored responses, as the request path reads and writes them. */
  storedResponses(): Promise<StoredResponseRows>;
  close(): Promise<void>;
}

/** An open database with its typed query builder at hand (the CLI's, tests'). */
export interface Db extends ServingDb {
  kysely: Kysely<Database>;
}
