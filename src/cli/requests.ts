/**
 * `tollgate requests`: ledger rows, newest first, a page at a time, so an operator handed a
 * request id by a user can see what happened to it.
 */
import {
  MAX_PAGE,
  REQUEST_STATUSES,
  type RequestDetailJson,
  type RequestJson,
} from "../admin/requests.ts";
import { withAdmin } from "./admin_session.ts";
import { type Command, single, subcommand } from "./command.ts";
import { formatTable, printJson, usageError, usdText } from "./output.ts";
import { parseIsoArg } from "./values.ts";

const requests = subcommand({
  usage: "tollgate requests [--id REQ] [--key KEY_ID] [--account NAME] [--model M]\n" +
    "                  [--status ok|failed|aborted|interrupted|refused] [--since T]\n" +
    "                  [--until T]" +
    "                  [--limit N] [--offset N | --before ID] [--json]",
  summary: "Lists requests as the ledger and the request log's refusals recorded them, newest " +
    "first; --id shows one in full.",
  flags: {
    id: { type: "string", value: "REQ", help: "the request of this id (x-request-id)" },
    key: { type: "string", value: "KEY_ID", help: "only this key's requests" },
    account: { type: "string", value: "NAME", help: "only this account's requests" },
    model: { type: "string", value: "M", help: "only requests for this model" },
    status: {
      type: "string",
      value: "S",
      help: "only requests that ended so: ok, failed, aborted (the client left; abandoned " +
        "means the same), interrupted, refused (before routing: no ledger row)",
    },
    since: { type: "string", value: "T", help: "from this time on (ISO 8601)" },
    until: { type: "string", value: "T", help: "before this time (ISO 8601)" },
    limit: {
      type: "string",
      value: "N",
      help: `at most N requests (default 50, up to ${MAX_PAGE})`,
    },
    offset: { type: "string", value: "N", help: "skip the N newest first" },
    before: {
      type: "string",
      value: "ID",
      help: "only requests older than the row of this id (the next page; a refusal's is " +
        "negative: --before=-12)",
    },
    json: { type: "boolean", help: "print the rows as JSON; each row's id pages on with --before" },
  },
  async run({ values }, ctx) {
    const usage = requests.usage;
    const status = values.status;
    if (status !== undefined && !(REQUEST_STATUSES as readonly string[]).includes(status)) {
      throw usageError(
        `Invalid --status "${status}": use one of ${REQUEST_STATUSES.join(", ")}`,
        usage,
      );
    }
    if (values.since !== undefined) parseIsoArg(values.since, "--since", usage);
    if (values.until !== undefined) parseIsoArg(values.until, "--until", usage);
    const count = (name: "limit" | "offset" | "before", min: number, max: number) => {
      const text = values[name];
      if (text === undefined) return undefined;
      const value = /^-?\d+$/.test(text) ? Number(text) : NaN;
      if (!(value >= min && value <= max)) {
        throw usageError(
          `Invalid --${name} "${text}": give a whole number from ${min} to ${max}`,
          usage,
        );
      }
      return value;
    };
    if (values.offset !== undefined && values.before !== undefined) {
      throw usageError("Give either --offset or --before, not both", usage);
    }
    const query = {
      id: values.id,
      key: values.key,
      account: values.account,
      model: values.model,
      status,
      since: values.since,
      until: values.until,
      limit: count("limit", 1, MAX_PAGE),
      offset: count("offset", 0, Number.MAX_SAFE_INTEGER),
      before: count("before", -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    };
    if (values.id !== undefined) {
      const id = values.id;
      const found = await withAdmin(ctx, values.config, (admin) => admin.request(id));
      if (values.json) printJson(ctx.io, found ? [found] : []);
      else {ctx.io.stdout(
          found ? detail(found) : `No request with id "${id}" in the ledger or the request log.`,
        );}
      return found || values.json ? 0 : 1;
    }
    const rows = await withAdmin(ctx, values.config, (admin) => admin.requests(query));
    if (values.json) {
      printJson(ctx.io, rows);
      return 0;
    }
    if (rows.length === 0) {
      ctx.io.stdout("No requests match this selection.");
      return 0;
    }
    ctx.io.stdout(requestTable(rows));
    return 0;
  },
});

/** The `requests` command. */
export const REQUESTS_COMMAND: Command = single(requests);

function requestTable(rows: readonly RequestJson[]): string {
  return formatTable(
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
      row.time,
      row.request_id,
      row.account ?? "-",
      row.key_id ?? row.key_prefix ?? "-",
      row.model ?? "-",
      row.entry_point ?? "-",
      row.channel ?? "-",
      row.code === null ? row.status : `${row.status} ${row.http_status} ${row.code}`,
      String(row.input_tokens),
      String(row.output_tokens),
      usdText(row.cost_usd),
    ]),
    ["left", "left", "left", "left", "left", "left", "left", "left", "right", "right", "right"],
  );
}

/** One request in full: its fields one a line, then a table of its upstream attempts. */
function detail(request: RequestDetailJson): string {
  const { attempts, ...row } = request;
  const width = Math.max(...Object.keys(row).map((name) => name.length));
  const fields = Object.entries(row)
    .map(([name, value]) => `${name.padEnd(width)}  ${value ?? "-"}`)
    .join("\n");
  if (attempts.length === 0) return fields;
  const table = formatTable(
    ["#", "CHANNEL", "MODEL", "OUTCOME", "STATUS", "TTFB_MS", "TTFC_MS", "IN", "OUT", "COST_USD"],
    attempts.map((attempt, index) => [
      String(index + 1),
      attempt.channel,
      attempt.model,
      attempt.outcome,
      attempt.status === null ? "-" : String(attempt.status),
      attempt.ttfb_ms === null ? "-" : String(attempt.ttfb_ms),
      attempt.ttfc_ms === null ? "-" : String(attempt.ttfc_ms),
      String(attempt.input_tokens),
      String(attempt.output_tokens),
      usdText(attempt.cost_usd),
    ]),
    ["right", "left", "left", "left", "right", "right", "right", "right", "right", "right"],
  );
  const reasons = attempts.flatMap((attempt, index) =>
    attempt.reason ? [`  ${index + 1}: ${attempt.reason}`] : []
  );
  return [fields, "", "attempts:", table, ...(reasons.length ? ["", ...reasons] : [])]
    .join("\n");
}
