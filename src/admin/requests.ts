/**
 * Requests as the ledger recorded them, newest first, a page at a time: what an operator
 * handed a request id by a user looks up, and what the dashboard's requests page lists.
 */
import type { AttemptRecord } from "../billing/attempt_record.ts";
import { microsToUsd } from "../billing/money.ts";
import { findRequests, type RequestRow } from "../db/ledger.ts";
import { countRefusals, findRefusals } from "../db/refusal_rows.ts";
import type { NewRefusal, RefusalRow } from "../db/schema.ts";
import type { AdminDeps } from "./deps.ts";
import { invalidField, notFound } from "./errors.ts";
import { countField, timeField } from "./fields.ts";

/**
 * Statuses a request can end in; `abandoned` is another name for `aborted`; `refused`
 * selects the request log's refusals (requests refused before routing: no ledger row).
 */
export const REQUEST_STATUSES = [
  "ok",
  "failed",
  "aborted",
  "abandoned",
  "interrupted",
  "refused",
] as const;

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

/** A ledger row or a refusal as `requests --json` prints it. */
export interface RequestJson {
  /** The row's id: `before` for the next page (a refusal's is negative). */
  id: number;
  request_id: string;
  time: string;
  /** The key's account and id; a refusal's are null when its key was not known. */
  account: string | null;
  key_id: string | null;
  /** The model asked; a refusal's is null when it came before the body was read. */
  model: string | null;
  entry_point: string | null;
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
  /** A refusal's error code (null for a ledger row). */
  code: string | null;
  /** The HTTP status a refusal answered (null for a ledger row). */
  http_status: number | null;
  /** A refusal's method and path (null for a ledger row). */
  method: string | null;
  path: string | null;
  /** The client address a refusal came from (null for a ledger row). */
  client_address: string | null;
  /** The first characters of a refused key that was not known (never the whole secret). */
  key_prefix: string | null;
  /** 1, or how many refusals one address's flood record counts in its minute. */
  count: number;
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
  const filter = {
    requestId: query.id,
    keyId: query.key,
    accountName: query.account,
    model: query.model,
    since: query.since === undefined ? undefined : timeField("since", query.since),
    until: query.until === undefined ? undefined : timeField("until", query.until),
    limit: countField("limit", query.limit ?? DEFAULT_PAGE, 1, MAX_PAGE),
  };
  const offset = query.offset === undefined
    ? 0
    : countField("offset", query.offset, 0, Number.MAX_SAFE_INTEGER);
  const before = query.before === undefined ? undefined : rowIdField(query.before);
  const db = await deps.queries();
  if (status !== undefined && status !== "refused" && (before === undefined || before > 0)) {
    // The ledger alone, paged by its rows' ids.
    const rows = await findRequests(db, {
      ...filter,
      // A stream the client walked away from is recorded as `aborted`.
      status: status === "abandoned" ? "aborted" : status,
      offset: offset || undefined,
      before,
    });
    return rows.map(requestJson);
  }
  // Ledger rows and refusals together, newest first: a page after a row is the rows older
  // than its time (rows of the very same millisecond are on neither page).
  const until = Math.min(
    filter.until ?? Infinity,
    before === undefined ? Infinity : await timeOfRow(db, before),
  );
  const window = {
    ...filter,
    until: Number.isFinite(until) ? until : undefined,
    limit: Math.min(filter.limit + offset, MAX_PAGE + offset),
  };
  const [ledger, refusals] = await Promise.all([
    status === "refused"
      ? []
      : findRequests(db, { ...window, status: status === "abandoned" ? "aborted" : status }),
    findRefusals(db, window),
  ]);
  const stored = refusals.map(refusalJson);
  const seen = new Set(refusals.map(refusalIdentity));
  const pending = (deps.pendingRefusals?.() ?? [])
    .filter((row) => matches(row, window) && !seen.has(refusalIdentity(row)))
    .map((row) => refusalJson({ ...row, id: 0 }));
  return [...ledger.map(requestJson), ...stored, ...pending]
    .sort((a, b) => b.time.localeCompare(a.time) || b.id - a.id)
    .slice(offset, offset + filter.limit);
}

/**
 * How many requests were refused over a range (the overview's figure beside the errors):
 * the records written and those still pending, a flood's record counting what it counted.
 */
export async function refusedCount(
  deps: AdminDeps,
  query: { since?: string; until?: string; key?: string; account?: string; model?: string },
): Promise<number> {
  const filter = {
    keyId: query.key,
    accountName: query.account,
    model: query.model,
    since: query.since === undefined ? undefined : timeField("since", query.since),
    until: query.until === undefined ? undefined : timeField("until", query.until),
  };
  const written = await countRefusals(await deps.queries(), filter);
  const pending = (deps.pendingRefusals?.() ?? []).filter((row) => matches(row, filter));
  return written + pending.reduce((sum, row) => sum + row.count, 0);
}

/** A row id given as `before`: a ledger row's (positive) or a refusal's (negative). */
function rowIdField(value: number): number {
  const id = countField("before", value, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  if (id === 0) throw invalidField("before", 'Invalid before "0": give a row\'s id.');
  return id;
}

/** The time of the row `id` names (a refusal's when negative); 0 when there is none. */
async function timeOfRow(db: Awaited<ReturnType<AdminDeps["queries"]>>, id: number) {
  const row = id > 0
    ? await db.selectFrom("ledger").select("created_at").where("id", "=", id).executeTakeFirst()
    : await db.selectFrom("refusals").select("created_at").where("id", "=", -id)
      .executeTakeFirst();
  return row ? Number(row.created_at) : 0;
}

/** What tells a refusal's record apart, written or pending. */
function refusalIdentity(row: Pick<NewRefusal, "request_id" | "created_at" | "code">): string {
  return `${row.request_id} ${Number(row.created_at)} ${row.code}`;
}

/** Whether a pending refusal is one the filter selects. */
function matches(
  row: NewRefusal,
  filter: {
    requestId?: string;
    keyId?: string;
    accountName?: string;
    model?: string;
    since?: number;
    until?: number;
  },
): boolean {
  return (filter.requestId === undefined || row.request_id === filter.requestId) &&
    (filter.keyId === undefined || row.key_id === filter.keyId) &&
    (filter.accountName === undefined || row.account === filter.accountName) &&
    (filter.model === undefined || row.model === filter.model) &&
    (filter.since === undefined || row.created_at >= filter.since) &&
    (filter.until === undefined || row.created_at < filter.until);
}

/** A refusal's record as `requests --json` prints it (its id negative). */
export function refusalJson(row: RefusalRow): RequestJson {
  return {
    id: -row.id,
    request_id: row.request_id,
    time: new Date(Number(row.created_at)).toISOString(),
    account: row.account,
    key_id: row.key_id,
    model: row.model,
    entry_point: row.entry_point,
    channel: null,
    upstream_model: null,
    served_model: null,
    stream: false,
    status: "refused",
    reason: row.reason,
    attempts: 0,
    input_tokens: 0,
    output_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    estimated: false,
    cost_usd: 0,
    duration_ms: Number(row.duration_ms),
    code: row.code,
    http_status: Number(row.http_status),
    method: row.method,
    path: row.path,
    client_address: row.client_address,
    key_prefix: row.key_prefix,
    count: Number(row.count),
  };
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
    code: null,
    http_status: null,
    method: null,
    path: null,
    client_address: null,
    key_prefix: null,
    count: 1,
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

/**
 * The request `id` names in full: its ledger row, else its refusal's record (pending ones
 * too); undefined when there is neither.
 */
export async function findRequest(
  deps: AdminDeps,
  id: string,
): Promise<RequestDetailJson | undefined> {
  const db = await deps.queries();
  const [row] = await findRequests(db, { requestId: id, limit: 1 });
  if (row) return requestDetail(row);
  const pending = deps.pendingRefusals?.().find((refusal) => refusal.request_id === id);
  const [refusal] = pending ? [{ ...pending, id: 0 }] : await findRefusals(db, {
    requestId: id,
    limit: 1,
  });
  return refusal && { ...refusalJson(refusal), attempts: [] };
}

/** The request `id` names in full, or the 404 that there is none (the API's, the page's). */
export async function requireRequest(deps: AdminDeps, id: string): Promise<RequestDetailJson> {
  const found = await findRequest(deps, id);
  if (!found) throw notFound(`No request with id "${id}" in the ledger or the request log.`);
  return found;
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
