/** Queries on the ledger: usage summed by account, key and model over a time range. */
import type { Kysely } from "kysely";
import type { Database, LedgerRow } from "./schema.ts";

/** Which ledger rows to sum; times are ms since the epoch, `until` exclusive. */
export interface UsageFilter {
  accountName?: string;
  keyId?: string;
  model?: string;
  since?: number;
  until?: number;
}

/** Usage of one account, key and model. */
export interface UsageRow {
  account: string;
  key_id: string;
  model: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cost_micros: number;
}

/** Sums the ledger by account, key and model, largest cost first. */
export async function summarizeUsage(
  db: Kysely<Database>,
  filter: UsageFilter,
): Promise<UsageRow[]> {
  let query = db
    .selectFrom("ledger")
    .innerJoin("accounts", "accounts.id", "ledger.account_id")
    .select((eb) => [
      "accounts.name as account",
      "ledger.key_id as key_id",
      "ledger.model as model",
      eb.fn.countAll<number>().as("requests"),
      eb.fn.sum<number>("ledger.input_tokens").as("input_tokens"),
      eb.fn.sum<number>("ledger.output_tokens").as("output_tokens"),
      eb.fn.sum<number>("ledger.cached_tokens").as("cached_tokens"),
      eb.fn.sum<number>("ledger.cost_micros").as("cost_micros"),
    ])
    .groupBy(["accounts.name", "ledger.key_id", "ledger.model"]);
  if (filter.accountName !== undefined) {
    query = query.where("accounts.name", "=", filter.accountName);
  }
  if (filter.keyId !== undefined) query = query.where("ledger.key_id", "=", filter.keyId);
  if (filter.model !== undefined) query = query.where("ledger.model", "=", filter.model);
  if (filter.since !== undefined) query = query.where("ledger.created_at", ">=", filter.since);
  if (filter.until !== undefined) query = query.where("ledger.created_at", "<", filter.until);
  const rows = await query.orderBy("cost_micros", "desc").orderBy("requests", "desc").execute();
  return rows.map((row) => ({
    account: row.account,
    key_id: row.key_id,
    model: row.model,
    requests: Number(row.requests),
    input_tokens: Number(row.input_tokens),
    output_tokens: Number(row.output_tokens),
    cached_tokens: Number(row.cached_tokens),
    cost_micros: Number(row.cost_micros),
  }));
}

/** Which ledger rows to list; times are ms since the epoch. */
export interface RequestFilter {
  requestId?: string;
  keyId?: string;
  accountName?: string;
  model?: string;
  status?: string;
  since?: number;
  limit: number;
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
  return await query.orderBy("ledger.id", "desc").limit(filter.limit).execute();
}
