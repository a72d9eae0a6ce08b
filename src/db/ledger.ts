/** Queries on the ledger: requests as they were recorded, newest first (usage.ts sums them). */
import type { Kysely } from "kysely";
import type { Database, LedgerRow } from "./schema.ts";

/** Which ledger rows to list; times are ms since the epoch. */
export interface RequestFilter {
  requestId?: string;
  keyId?: string;
  accountName?: string;
  model?: string;
  status?: string;
  since?: number;
  /** Exclusive. */
  until?: number;
  /** Only rows older than this row (its `id`): the next page after it. */
  before?: number;
  limit: number;
  /** Rows to skip first. */
  offset?: number;
}

/** One ledger row with its account's name. */
export type RequestRow = LedgerRow & { account: string };

/** Ledger rows matching the filter, newest first. */
export async function findRequests(
  db: Kysely<Database>,
  filter: RequestFilter,
): Promise<RequestRow[]> {
  let query = db
    .selectFrom("ledger")
    .innerJoin("accounts", "accounts.id", "ledger.account_id")
    .selectAll("ledger")
    .select("accounts.name as account");
  if (filter.requestId !== undefined) {
    query = query.where("ledger.request_id", "=", filter.requestId);
  }
  if (filter.keyId !== undefined) query = query.where("ledger.key_id", "=", filter.keyId);
  if (filter.accountName !== undefined) {
    query = query.where("accounts.name", "=", filter.accountName);
  }
  if (filter.model !== undefined) query = query.where("ledger.model", "=", filter.model);
  if (filter.status !== undefined) query = query.where("ledger.status", "=", filter.status);
  if (filter.since !== undefined) query = query.where("ledger.created_at", ">=", filter.since);
  if (filter.until !== undefined) query = query.where("ledger.created_at", "<", filter.until);
  if (filter.before !== undefined) query = query.where("ledger.id", "<", filter.before);
  query = query.orderBy("ledger.id", "desc").limit(filter.limit);
  if (filter.offset) query = query.offset(filter.offset);
  return await query.execute();
}

/** Which requests' durations to read; times are ms since the epoch, `until` exclusive. */
export interface DurationScope {
  accountId?: number;
  keyId?: string;
  model?: string;
  since?: number;
  until?: number;
}

/** The durations (ms) of the newest `limit` requests that ended `ok` in the scope. */
export async function recentDurations(
  db: Kysely<Database>,
  scope: DurationScope,
  limit: number,
): Promise<number[]> {
  let query = db.selectFrom("ledger").select("duration_ms").where("status", "=", "ok");
  if (scope.accountId !== undefined) query = query.where("account_id", "=", scope.accountId);
  if (scope.keyId !== undefined) query = query.where("key_id", "=", scope.keyId);
  if (scope.model !== undefined) query = query.where("model", "=", scope.model);
  if (scope.since !== undefined) query = query.where("created_at", ">=", scope.since);
  if (scope.until !== undefined) query = query.where("created_at", "<", scope.until);
  const rows = await query.orderBy("created_at", "desc").limit(limit).execute();
  return rows.map((row) => row.duration_ms);
}
