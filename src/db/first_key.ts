/**
 * The first run's account (`admin`, unlimited) and its admin key, in plain SQL that every
 * dialect runs alike: a first start writes these two rows without loading the query builder
 * (bench/README.md, "Idle RSS").
 */
import type { SqlClient } from "./sql_client.ts";

/** The first key's row: its id, the hash and prefix of its secret, when it was made. */
export interface FirstKey {
  id: string;
  hash: string;
  prefix: string;
  createdAt: number;
}

/**
 * Creates the `admin` account unless it exists and the key on it, in the `default` group,
 * in one transaction.
 */
export async function createFirstKey(client: SqlClient, key: FirstKey): Promise<void> {
  await client.batch([
    {
      sql: "INSERT INTO accounts (name, enabled, unlimited, balance_micros, created_at) " +
        "VALUES ('admin', 1, 1, 0, ?) ON CONFLICT (name) DO NOTHING",
      args: [key.createdAt],
    },
    {
      sql: "INSERT INTO api_keys (id, hash, prefix, account_id, group_name, name, enabled, " +
        "revoked, admin, created_at) " +
        "SELECT ?, ?, ?, id, 'default', 'first key', 1, 0, 1, ? FROM accounts WHERE name = 'admin'",
      args: [key.id, key.hash, key.prefix, key.createdAt],
    },
  ]);
}
