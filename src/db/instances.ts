/** Serving processes on SQLite: each registers itself, so holds of a crashed one can be found. */
import type { SqlClient } from "./sql_client.ts";
import type { Instance } from "./store.ts";

/** Registers (or refreshes) an instance. */
export async function registerInstance(client: SqlClient, instance: Instance): Promise<void> {
  await client.execute({
    sql: `INSERT INTO instances (id, host, pid, started_at, heartbeat_at) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`,
    args: [instance.id, instance.host, instance.pid, instance.heartbeatAt, instance.heartbeatAt],
  });
}

/** Every registered instance. */
export async function listInstances(client: SqlClient): Promise<Instance[]> {
  const result = await client.execute("SELECT id, host, pid, heartbeat_at FROM instances");
  return result.rows.map((row) => ({
    id: String(row.id),
    host: String(row.host),
    pid: Number(row.pid),
    heartbeatAt: Number(row.heartbeat_at),
  }));
}

/** Forgets instances (after their holds were released). */
export async function removeInstances(client: SqlClient, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await client.execute({
    sql: `DELETE FROM instances WHERE id IN (${ids.map(() => "?").join(", ")})`,
    args: [...ids],
  });
}
