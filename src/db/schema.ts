/**
 * The database as one typed interface of tables (kysely). Money is integer
 * micro-USD in `*_micros` columns; timestamps (`*_at`) are integer milliseconds
 * since the Unix epoch (UTC); booleans are 0/1 integers.
 */
import type { Generated, Insertable, Kysely, Selectable } from "kysely";

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  enabled: number;
  unlimited: number;
  balance_micros: number;
  held_micros: Generated<number>;
  created_at: number;
  /** Its own budget (migrations/012_budgets.sql): null follows `[budgets] account`. */
  budget_mode: Generated<string | null>;
  budget_micros: Generated<number | null>;
  budget_period: Generated<string | null>;
  budget_period_start: Generated<number>;
  budget_spent_micros: Generated<number>;
  budget_held_micros: Generated<number>;
  budget_alert_ppm: Generated<number>;
  budget_alert_limit_micros: Generated<number>;
  /** The lowest floor of `balance.low` announced since the last top-up. */
  balance_alert_floor_micros: Generated<number | null>;
}

export interface ApiKeysTable {
  id: string;
  /** SHA-256 of the secret, hex; the secret itself is never stored. */
  hash: string;
  /** The first characters of the secret, to recognise it in listings. */
  prefix: string;
  account_id: number;
  group_name: string;
  name: string | null;
  enabled: number;
  revoked: number;
  expires_at: number | null;
  quota_tokens: number | null;
  used_tokens: Generated<number>;
  held_tokens: Generated<number>;
  /** JSON array of model ids the key is restricted to, or null. */
  models: string | null;
  /** JSON array of CIDRs the key may be used from, or null. */
  allow_ips: string | null;
  created_at: number;
  /** 1: the key may use the admin API and the dashboard. */
  admin: Generated<number>;
  /** When the key's latest request settled; null before its first. */
  last_used_at: Generated<number | null>;
  /** Its own budget (migrations/012_budgets.sql): null follows its group's `key_budget`. */
  budget_mode: Generated<string | null>;
  budget_micros: Generated<number | null>;
  budget_period: Generated<string | null>;
  budget_period_start: Generated<number>;
  budget_spent_micros: Generated<number>;
  budget_held_micros: Generated<number>;
  budget_alert_ppm: Generated<number>;
  budget_alert_limit_micros: Generated<number>;
}

export interface InstancesTable {
  id: string;
  host: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
}

export interface HoldsTable {
  id: string;
  instance_id: string;
  account_id: number;
  key_id: string;
  amount_micros: number;
  tokens: number;
  created_at: number;
  expires_at: number;
  request_id: string;
  model: string;
  entry_point: string;
  stream: number;
  /** Estimated input tokens, billed if the request never settles (an `interrupted` row). */
  input_tokens: number;
  /** Their cost at the hold's price, in micro-USD. */
  input_cost_micros: number;
}

export interface LedgerTable {
  id: Generated<number>;
  request_id: string;
  created_at: number;
  account_id: number;
  key_id: string;
  model: string;
  entry_point: string;
  channel: string | null;
  upstream_model: string | null;
  /** The config's name of the model that served: a fallback's, or the one asked. */
  served_model: string | null;
  /** The upstream attempts as JSON (billing/attempt_record.ts). */
  attempt_log: string | null;
  attempts: number;
  stream: number;
  /**
   * `ok`, `failed`, `aborted` (the client went away mid-stream) or `interrupted` (the
   * server stopped before the request settled: billed for its estimated input).
   */
  status: string;
  reason: string | null;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  estimated: number;
  cost_micros: number;
  duration_ms: number;
}

/**
 * A request refused before routing (migrations/015_request_log.sql): the request log's
 * record of a request without a ledger row.
 */
export interface RefusalsTable {
  id: Generated<number>;
  request_id: string;
  created_at: number;
  key_id: string | null;
  /** The first characters of a key that was not known; never the whole secret. */
  key_prefix: string | null;
  account: string | null;
  entry_point: string | null;
  method: string;
  path: string;
  model: string | null;
  /** The HTTP status the client got. */
  http_status: number;
  code: string;
  reason: string;
  client_address: string;
  duration_ms: number;
  /** 1, or the refusals one client address's flood record counts in its minute. */
  count: number;
}

/** A stored `/v1/responses` answer, one turn of its conversation; JSON columns are text. */
export interface StoredResponsesTable {
  id: string;
  account_id: number;
  key_id: string;
  model: string;
  created_at: number;
  expires_at: number;
  /** The response object as the client got it. */
  response: string;
  /**
   * The input items its turn added, resolved, with ids (a JSON array); a response stored
   * before migrations/010, every input item that led to it.
   */
  input_items: string;
  /** The turn it continues, whose conversation comes before its own input; null: the first. */
  previous_response_id: string | null;
  /** 1: deleted, kept only for the turns that continue it (found no more). */
  deleted: Generated<number>;
}

/** One item of a stored response (input or output), by id, for `item_reference`. */
export interface StoredItemsTable {
  account_id: number;
  id: string;
  response_id: string;
  item: string;
}

/** What a rollup sums of the ledger rows of its bucket, account, key and model. */
export interface UsageFiguresColumns {
  account_id: number;
  key_id: string;
  model: string;
  requests: number;
  /** Rows whose status is `failed` or `interrupted`. */
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  cost_micros: number;
}

/**
 * Usage of one hour (`hour`: its first millisecond, UTC), account, key and model, summed
 * from the ledger rows whose `created_at` falls in it, in the same transaction as they.
 */
export interface UsageHourlyTable extends UsageFiguresColumns {
  hour: number;
}

/** Usage of one hour and account, over all its keys and models: usage_hourly's rows summed. */
export interface UsageHourlyAccountsTable extends Omit<UsageFiguresColumns, "key_id" | "model"> {
  hour: number;
}

/** Usage of one day (`day`: its first millisecond, UTC), as usage_hourly's of its hours. */
export interface UsageDailyTable extends UsageFiguresColumns {
  day: number;
}

/** A dashboard session: the SHA-256 of its cookie's token, and the key it was opened with. */
export interface SessionsTable {
  token_hash: string;
  key_id: string;
  created_at: number;
  /** When the session was last used (updated at most once a minute). */
  seen_at: number;
}

/** A top-up or an adjustment of an account (migrations/012_budgets.sql). */
export interface AccountEntriesTable {
  id: Generated<number>;
  account_id: number;
  created_at: number;
  /** `topup` or `adjust`. */
  kind: string;
  /** Signed. */
  usd_micros: number;
  reason: string | null;
  /** The balance after it. */
  balance_micros: number;
}

/** An alert event of the outbox; `facts` and `data` are JSON text. */
export interface AlertEventsTable {
  id: string;
  type: string;
  scope: string | null;
  threshold_ppm: number | null;
  created_at: number;
  facts: string;
  data: string | null;
  expanded: Generated<number>;
  dedupe: string | null;
}

/** One event's delivery to one webhook. */
export interface AlertDeliveriesTable {
  event_id: string;
  webhook: string;
  /** `pending`, `delivered` or `failed`. */
  status: Generated<string>;
  attempts: Generated<number>;
  next_at: number;
  claimed_until: Generated<number>;
  claimed_by: string | null;
  last_error: string | null;
  delivered_at: number | null;
}

/** Every table of tollgate's database. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  instances: InstancesTable;
  holds: HoldsTable;
  ledger: LedgerTable;
  refusals: RefusalsTable;
  stored_responses: StoredResponsesTable;
  stored_items: StoredItemsTable;
  usage_hourly: UsageHourlyTable;
  usage_hourly_accounts: UsageHourlyAccountsTable;
  usage_daily: UsageDailyTable;
  sessions: SessionsTable;
  account_entries: AccountEntriesTable;
  alert_events: AlertEventsTable;
  alert_deliveries: AlertDeliveriesTable;
}

export type Account = Selectable<AccountsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type NewApiKey = Insertable<ApiKeysTable>;
export type LedgerRow = Selectable<LedgerTable>;
export type NewLedgerRow = Insertable<LedgerTable>;
export type RefusalRow = Selectable<RefusalsTable>;
/** A refusal to write: every column but its id. */
export type NewRefusal = Omit<RefusalRow, "id">;
export type StoredResponseRow = Selectable<StoredResponsesTable>;
/** The query builder over tollgate's tables, for modules that call db/'s queries. */
export type Queries = Kysely<Database>;
