/**
 * The request log's refusals (migrations/015_request_log.sql): written in batches by the
 * serving process, removed once older than `request_log_days`, read newest first beside
 * the ledger's rows (admin/requests.ts).
 */
import type { Kysely } from "kysely";
import type { RequestFilter } from "./ledger.ts";
import { inserts, insertsOf } from "./row_inserts.ts";
import type { Database, NewRefusal, RefusalRow } from "./schema.ts";
import type { SqlClient, SqlValue } from "./sql_client.ts";

const COLUMNS = [
  "request_id",
  "created_at",
  "key_id",
  "key_prefix",
  "account",
  "entry_point",
  "method",
  "path",
  "model",
  "http_status",
  "code",
  "reason",
  "client_address",
  "duration_ms",
  "count",
] as const satisfies readonly (keyof NewRefusal)[];

const INSERT_REFUSALS = insertsOf("refusals", COLUMNS.join(", "));

/** Writes `rows` in one transaction. */
export async function insertRefusals(
  client: SqlClient,
  rows: readonly NewRefusal[],
): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((row) => COLUMNS.map((column) => row[column] as SqlValue));
  await client.batch(inserts(INSERT_REFUSALS, values));
}

/** Removes up to `limit` refusals older than `before` (ms); how many. */
export async function pruneRefusals(
  client: SqlClient,
  before: number,
  limit = 10_000,
): Promise<number> {
  const result = await client.execute({
    sql: `DELETE FROM refusals WHERE id IN
      (SELECT id FROM refusals WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
    args: [before, limit],
  });
  return result.rowsAffected;
}

/**
 * Refusals matching the filter, newest first (`before`, a ledger row's id, is the caller's
 * to turn into a time: refusals page by `beforeTime`).
 */
export async function findRefusals(
  db: Kysely<Database>,
  filter: Omit<RequestFilter, "before" | "status"> & { beforeTime?: number },
): Promise<RefusalRow[]> {
  let query = db.selectFrom("refusals").selectAll();
  if (filter.requestId !== undefined) query = query.where("request_id", "=", filter.requestId);
  if (filter.keyId !== undefined) query = query.where("key_id", "=", filter.keyId);
  if (filter.accountName !== undefined) query = query.where("account", "=", filter.accountName);
  if (filter.model !== undefined) query = query.where("model", "=", filter.model);
  if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
  if (filter.until !== undefined) query = query.where("created_at", "<", filter.until);
  if (filter.beforeTime !== undefined) query = query.where("created_at", "<", filter.beforeTime);
  query = query.orderBy("created_at", "desc").orderBy("id", "desc").limit(filter.limit);
  if (filter.offset) query = query.offset(filter.offset);
  return await query.execute();
}

/** How many refusals the filter selects (a flood's record counts what it counted). */
export async function countRefusals(
  db: Kysely<Database>,
  filter: Omit<RequestFilter, "before" | "status" | "limit" | "offset" | "requestId">,
): Promise<number> {
  let query = db.selectFrom("refusals").select((eb) => eb.fn.sum<number>("count").as("total"));
  if (filter.keyId !== undefined) query = query.where("key_id", "=", filter.keyId);
  if (filter.accountName !== undefined) query = query.where("account", "=", filter.accountName);
  if (filter.model !== undefined) query = query.where("model", "=", filter.model);
  if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
  if (filter.until !== undefined) query = query.where("created_at", "<", filter.until);
  const row = await query.executeTakeFirst();
  return Number(row?.total ?? 0);
}
