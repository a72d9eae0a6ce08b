/** Queries on the ledger: usage summed by account, key and model over a time range. */
import type { Kysely } from "kysely";
import type { Database } from "./schema.ts";

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
