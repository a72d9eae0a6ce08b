/** `tollgate usage`: requests, tokens and cost by account, key and model, and over time. */
import type { UsageCounts, UsageReport } from "../admin/usage.ts";
import { withAdmin } from "./admin_session.ts";
import { type Command, single, subcommand } from "./command.ts";
import { formatTable, printJson, usageError, usdText } from "./output.ts";
import { parseIsoArg } from "./values.ts";

const BUCKETS = ["hour", "day"] as const;

const usage = subcommand({
  usage: "tollgate usage [--account NAME] [--key KEY_ID] [--model MODEL] [--since ISO8601]\n" +
    "               [--until ISO8601] [--bucket hour|day] [--json]",
  summary: "Sums requests, tokens and cost by account, key and model (exact to the time " +
    "given), and by hour or day with --bucket.",
  flags: {
    account: { type: "string", value: "NAME", help: "only this account's usage" },
    key: { type: "string", value: "KEY_ID", help: "only this key's usage" },
    model: { type: "string", value: "MODEL", help: "only this model's usage" },
    since: {
      type: "string",
      value: "ISO8601",
      help: "from this time on (a date alone is midnight UTC)",
    },
    until: { type: "string", value: "ISO8601", help: "before this time" },
    bucket: {
      type: "string",
      value: "hour|day",
      help: "also sum by hour or by day (UTC): the series",
    },
    json: { type: "boolean", help: "print {totals, rows, series} as JSON instead of tables" },
  },
  async run({ values }, ctx) {
    const spec = usage.usage;
    if (values.since !== undefined) parseIsoArg(values.since, "--since", spec);
    if (values.until !== undefined) parseIsoArg(values.until, "--until", spec);
    const bucket = values.bucket;
    if (bucket !== undefined && !(BUCKETS as readonly string[]).includes(bucket)) {
      throw usageError(`Invalid --bucket "${bucket}": use hour or day`, spec);
    }
    const report = await withAdmin(ctx, values.config, (admin) =>
      admin.usage({
        account: values.account,
        key: values.key,
        model: values.model,
        since: values.since,
        until: values.until,
        bucket: bucket as (typeof BUCKETS)[number] | undefined,
      }));
    if (values.json) printJson(ctx.io, report);
    else ctx.io.stdout(usageTables(report));
    return 0;
  },
});

/** The `usage` command. */
export const USAGE_COMMAND: Command = single(usage);

const COUNT_HEADERS = ["REQUESTS", "ERRORS", "INPUT", "OUTPUT", "CACHED", "COST_USD"];

/** The report as tables: by account, key and model with a total line, then the series. */
function usageTables(report: UsageReport): string {
  if (report.rows.length === 0) return "No usage recorded for this selection.";
  const right = COUNT_HEADERS.map(() => "right" as const);
  const tables = [formatTable(
    ["ACCOUNT", "KEY", "MODEL", ...COUNT_HEADERS],
    [
      ...report.rows.map((row) => [row.account, row.key_id, row.model, ...counts(row)]),
      ["total", "", "", ...counts(report.totals)],
    ],
    ["left", "left", "left", ...right],
  )];
  if (report.series) {
    tables.push(formatTable(
      ["TIME", ...COUNT_HEADERS],
      report.series.map((point) => [point.t, ...counts(point)]),
      ["left", ...right],
    ));
  }
  return tables.join("\n\n");
}

function counts(figures: UsageCounts): string[] {
  return [
    String(figures.requests),
    String(figures.errors),
    String(figures.input_tokens),
    String(figures.output_tokens),
    String(figures.cached_tokens),
    usdText(figures.cost_usd),
  ];
}
