/**
 * The store (store.ts) over plain SQL, written once for both dialects: instances, key
 * lookups and the recovery sweep's reads are the same statements on SQLite and on
 * PostgreSQL. What differs is given by each dialect (`StoreDialect`): how money moves
 * (SQLite's write transactions, hold_steps.ts; PostgreSQL's stored functions, one round
 * trip each, postgres_store.ts) and whose clock a heartbeat reads.
 */
import { KEY_BY_HASH } from "./keys.ts";
import { placeholders, type SqlClient } from "./sql_client.ts";
import type { Instance, KeyWithAccount, Store } from "./store.ts";

/** What a dialect gives the store: its money operations and its clock. */
export interface StoreDialect
  extends Pick<Store, "takeHold" | "extendHold" | "settleHold" | "interruptHolds" | "flush"> {
  /**
   * `process`: a heartbeat is the caller's time (one process owns a SQLite file);
   * `database`: the database's (`tollgate_now()`), which every node shares.
   */
  clock: "process" | "database";
}

const HAS_KEYS = "SELECT CASE WHEN EXISTS (SELECT 1 FROM api_keys) THEN 1 ELSE 0 END AS found";

/** The store on `client`, moving money as `dialect` does. */
export function createStore(client: SqlClient, dialect: StoreDialect): Store {
  const now = dialect.clock === "database" ? "tollgate_now()" : "?";
  const heartbeat = `INSERT INTO instances (id, host, pid, started_at, heartbeat_at)
    VALUES (?, ?, ?, ${now}, ${now})
    ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
    RETURNING heartbeat_at`;
  return {
    takeHold: dialect.takeHold,
    extendHold: dialect.extendHold,
    settleHold: dialect.settleHold,
    interruptHolds: dialect.interruptHolds,
    flush: dialect.flush,
    async heartbeat({ id, host, pid, heartbeatAt }) {
      const at = dialect.clock === "database" ? [] : [heartbeatAt, heartbeatAt];
      const { rows } = await client.execute({ sql: heartbeat, args: [id, host, pid, ...at] });
      return Number(rows[0]!.heartbeat_at);
    },
    async listInstances() {
      const { rows } = await client.execute("SELECT id, host, pid, heartbeat_at FROM instances");
      return rows.map((row): Instance => ({
        id: String(row.id),
        host: String(row.host),
        pid: Number(row.pid),
        heartbeatAt: Number(row.heartbeat_at),
      }));
    },
    async removeInstances(ids) {
      if (ids.length === 0) return;
      await client.execute({
        sql: `DELETE FROM instances WHERE id IN (${placeholders(ids.length)})`,
        args: [...ids],
      });
    },
    async findReleasableHolds(now, dead) {
      const { rows } = await client.execute({
        sql: `SELECT id FROM holds WHERE expires_at <= ?${
          dead.length > 0 ? ` OR instance_id IN (${placeholders(dead.length)})` : ""
        }`,
        args: [now, ...dead],
      });
      return rows.map((row) => String(row.id));
    },
    async findKey(hash) {
      const { rows } = await client.execute({ sql: KEY_BY_HASH, args: [hash] });
      return rows[0] as KeyWithAccount | undefined;
    },
    async hasKeys() {
      const { rows } = await client.execute(HAS_KEYS);
      return Number(rows[0]?.found) === 1;
    },
    async ping() {
      await client.execute("SELECT 1");
    },
  };
}
