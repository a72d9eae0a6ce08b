/**
 * Requests as the ledger recorded them, newest first, a page at a time: what an operator
 * handed a request id by a user looks up, and what the dashboard's requests page lists.
 */
import type { AttemptRecord } from "../billing/attempt_record.ts";
import { microsToUsd } from "../billing/money.ts";
import { findRequests, type RequestRow } from "../db/ledger.ts";
import type { AdminDeps } from "./deps.ts";
import { invalidField } from "./errors.ts";
import { countField, timeField } from "./fields.ts";

/** Statuses a request can end in; `abandoned` is another name for `aborted`. */
export const REQUEST_STATUSES = ["ok", "failed", "aborted", "abandoned", "interrupted"] as const;

/** A page holds at most this many requests. */
export const MAX_PAGE = 1_000;
/** A page holds this many unless told otherwise. */
export const DEFAULT_PAGE = 50;

/**
 * Which requests to list (the CLI's flags, the admin API's query parameters). A page is
 * `limit` rows after skipping `offset`, or the rows older than the one whose `id` is
 * `before` (the last row of the previous page: stable while new requests come in).
 */
export interface RequestsQuery {
  id?: string;
  key?: string;
  account?: string;
  model?: string;
  status?: string;
  since?: string;
  until?: string;
  limit?: number;
  offset?: number;
  before?: number;
}

/** A ledger row as `requests --json` prints it. */
export interface RequestJson {
  /** The ledger row's id: `before` for the next page. */
  id: number;
  request_id: string;
  time: string;
  account: string;
  key_id: string;
  model: string;
  entry_point: string;
  channel: string | null;
  upstream_model: string | null;
  /** The config's name of the model that served: a fallback's, or the one asked. */
  served_model: string | null;
  stream: boolean;
  status: string;
  reason: string | null;
  attempts: number;
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  estimated: boolean;
  cost_usd: number;
  duration_ms: number;
}

/** The requests `query` selects, newest first. */
export async function listRequests(deps: AdminDeps, query: RequestsQuery): Promise<RequestJson[]> {
  const status = query.status;
  if (status !== undefined && !(REQUEST_STATUSES as readonly string[]).includes(status)) {
    throw invalidField(
      "status",
      `Invalid status "${status}": use one of ${REQUEST_STATUSES.join(", ")}.`,
    );
  }
  const rows = await findRequests(await deps.queries(), {
    requestId: query.id,
    keyId: query.key,
    accountName: query.account,
    model: query.model,
    // A stream the client walked away from is recorded as `aborted`.
    status: status === "abandoned" ? "aborted" : status,
    since: query.since === undefined ? undefined : timeField("since", query.since),
    until: query.until === undefined ? undefined : timeField("until", query.until),
    limit: countField("limit", query.limit ?? DEFAULT_PAGE, 1, MAX_PAGE),
    offset: query.offset === undefined
      ? undefined
      : countField("offset", query.offset, 0, Number.MAX_SAFE_INTEGER),
    before: query.before === undefined
      ? undefined
      : countField("before", query.before, 1, Number.MAX_SAFE_INTEGER),
  });
  return rows.map(requestJson);
}

/** The record `requests --json` prints. */
export function requestJson(row: RequestRow): RequestJson {
  return {
    id: row.id,
    request_id: row.request_id,
    time: new Date(row.created_at).toISOString(),
    account: row.account,
    key_id: row.key_id,
    model: row.model,
    entry_point: row.entry_point,
    channel: row.channel,
    upstream_model: row.upstream_model,
    served_model: row.served_model,
    stream: row.stream === 1,
    status: row.status,
    reason: row.reason,
    attempts: row.attempts,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    cached_tokens: row.cached_tokens,
    cache_write_tokens: row.cache_write_tokens,
    estimated: row.estimated === 1,
    cost_usd: microsToUsd(row.cost_micros),
    duration_ms: row.duration_ms,
  };
}

/** One upstream attempt of a request, as `requests --id --json` and the admin API show it. */
export interface AttemptJson {
  channel: string;
  model: string;
  upstream_model: string;
  outcome: string;
  status: number | null;
  reason: string | null;
  ttfb_ms: number | null;
  ttfc_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** One request in full: its ledger row with each upstream attempt in place of their count. */
export type RequestDetailJson = Omit<RequestJson, "attempts"> & { attempts: AttemptJson[] };

/** The request `id` names in full, or undefined when the ledger has no row of it. */
export async function findRequest(
  deps: AdminDeps,
  id: string,
): Promise<RequestDetailJson | undefined> {
  const [row] = await findRequests(await deps.queries(), { requestId: id, limit: 1 });
  return row && requestDetail(row);
}

/** A ledger row in full, its attempts read from the row's log. */
export function requestDetail(row: RequestRow): RequestDetailJson {
  return { ...requestJson(row), attempts: attemptsOf(row.attempt_log) };
}

/** The attempts a ledger row keeps (billing/attempt_record.ts), in their JSON shape. */
function attemptsOf(log: string | null): AttemptJson[] {
  if (!log) return [];
  const records = JSON.parse(log) as AttemptRecord[];
  return records.map((record) => ({
    channel: record.channel,
    model: record.model,
    upstream_model: record.upstreamModel,
    outcome: record.outcome,
    status: record.status ?? null,
    reason: record.reason ?? null,
    ttfb_ms: record.ttfbMs ?? null,
    ttfc_ms: record.ttfcMs ?? null,
    input_tokens: record.usage?.input_tokens ?? 0,
    output_tokens: record.usage?.output_tokens ?? 0,
    cost_usd: microsToUsd(record.costMicros ?? 0),
  }));
}
