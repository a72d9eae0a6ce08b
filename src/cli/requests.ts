/**
 * `tollgate requests`: ledger rows, newest first, so an operator handed a request id
 * by a user can see what happened to it.
 */
import { formatUsd, microsToUsd } from "../billing/money.ts";
import { findRequests, type RequestRow } from "../db/ledger.ts";
import {
  type CliContext,
  CONFIG_OPTION,
  expectPositionals,
  parseCommandArgs,
  withDatabase,
} from "./context.ts";
import { formatTable, printJson, usageError } from "./output.ts";
import { parseIsoArg } from "./values.ts";

/** Usage lines of the `requests` command. */
export const REQUESTS_USAGE = "tollgate requests [--id REQ] [--key KEY_ID] [--account NAME] " +
  "[--model M]\n                  [--status ok|failed|aborted|interrupted] [--since ISO8601] " +
  "[--limit N] [--json]";

const STATUSES = ["ok", "failed", "aborted", "abandoned", "interrupted"];

/** Runs `requests ...`; returns the exit status. */
export async function runRequestsCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = {
    ...CONFIG_OPTION,
    id: { type: "string" },
    key: { type: "string" },
    account: { type: "string" },
    model: { type: "string" },
    status: { type: "string" },
    since: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  } as const;
  const { values, positionals } = parseCommandArgs(args, options, REQUESTS_USAGE);
  expectPositionals(positionals, [], REQUESTS_USAGE);
  if (values.status !== undefined && !STATUSES.includes(values.status)) {
    throw usageError(
      `Invalid --status "${values.status}": use one of ${STATUSES.join(", ")}`,
      REQUESTS_USAGE,
    );
  }
  const limit = values.limit === undefined ? 50 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) {
    throw usageError(`Invalid --limit "${values.limit}": give a positive integer`, REQUESTS_USAGE);
  }
  const rows = await withDatabase(ctx, values.config, ({ db }) =>
    findRequests(db.kysely, {
      requestId: values.id,
      keyId: values.key,
      accountName: values.account,
      model: values.model,
      // A stream the client walked away from is recorded as `aborted`.
      status: values.status === "abandoned" ? "aborted" : values.status,
      since: values.since === undefined
        ? undefined
        : parseIsoArg(values.since, "--since", REQUESTS_USAGE),
      limit,
    }));
  if (values.json) {
    printJson(ctx.io, rows.map(jsonRow));
    return 0;
  }
  if (rows.length === 0) {
    ctx.io.stdout(
      values.id === undefined
        ? "No requests match this selection."
        : `No request with id "${values.id}" in the ledger.`,
    );
    return values.id === undefined ? 0 : 1;
  }
  if (values.id !== undefined) {
    for (const row of rows) ctx.io.stdout(detail(row));
    return 0;
  }
  ctx.io.stdout(formatTable(
    [
      "TIME",
      "REQUEST",
      "ACCOUNT",
      "KEY",
      "MODEL",
      "ENTRY",
      "CHANNEL",
      "STATUS",
      "IN",
      "OUT",
      "COST_USD",
    ],
    rows.map((row) => [
      new Date(row.created_at).toISOString(),
      row.request_id,
      row.account,
      row.key_id,
      row.model,
      row.entry_point,
      row.channel ?? "-",
      row.status,
      String(row.input_tokens),
      String(row.output_tokens),
      formatUsd(row.cost_micros),
    ]),
    ["left", "left", "left", "left", "left", "left", "left", "left", "right", "right", "right"],
  ));
  return 0;
}

function jsonRow(row: RequestRow) {
  return {
    request_id: row.request_id,
    time: new Date(row.created_at).toISOString(),
    account: row.account,
    key_id: row.key_id,
    model: row.model,
    entry_point: row.entry_point,
    channel: row.channel,
    upstream_model: row.upstream_model,
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

function detail(row: RequestRow): string {
  const fields = jsonRow(row);
  const width = Math.max(...Object.keys(fields).map((name) => name.length));
  return Object.entries(fields)
    .map(([name, value]) => `${name.padEnd(width)}  ${value ?? "-"}`)
    .join("\n");
}
