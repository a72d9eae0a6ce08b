/** `tollgate usage`: requests, tokens and cost from the ledger, by account, key and model. */
import { formatUsd, microsToUsd } from "../billing/money.ts";
import { summarizeUsage, type UsageRow } from "../db/ledger.ts";
import {
  type CliContext,
  CONFIG_OPTION,
  expectPositionals,
  parseCommandArgs,
  withDatabase,
} from "./context.ts";
import { formatTable, printJson } from "./output.ts";
import { parseIsoArg } from "./values.ts";

/** Usage lines of the `usage` command. */
export const USAGE_USAGE =
  "tollgate usage [--account NAME] [--key KEY_ID] [--model MODEL] [--since ISO8601] [--until ISO8601] [--json]";

/** Runs `usage ...`; returns the exit status. */
export async function runUsageCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = {
    ...CONFIG_OPTION,
    account: { type: "string" },
    key: { type: "string" },
    model: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    json: { type: "boolean" },
  } as const;
  const { values, positionals } = parseCommandArgs(args, options, USAGE_USAGE);
  expectPositionals(positionals, [], USAGE_USAGE);
  const filter = {
    accountName: values.account,
    keyId: values.key,
    model: values.model,
    since: values.since === undefined
      ? undefined
      : parseIsoArg(values.since, "--since", USAGE_USAGE),
    until: values.until === undefined
      ? undefined
      : parseIsoArg(values.until, "--until", USAGE_USAGE),
  };
  const rows = await withDatabase(
    ctx,
    values.config,
    ({ db }) => summarizeUsage(db.kysely, filter),
  );
  const totals = sumRows(rows);
  if (values.json) {
    const { cost_micros, ...counts } = totals;
    printJson(ctx.io, {
      totals: { ...counts, cost_usd: microsToUsd(cost_micros) },
      rows: rows.map(({ cost_micros, ...row }) => ({ ...row, cost_usd: microsToUsd(cost_micros) })),
    });
    return 0;
  }
  if (rows.length === 0) {
    ctx.io.stdout("No usage recorded for this selection.");
    return 0;
  }
  const line = (row: Omit<UsageRow, "account" | "key_id" | "model">) => [
    String(row.requests),
    String(row.input_tokens),
    String(row.output_tokens),
    String(row.cached_tokens),
    formatUsd(row.cost_micros),
  ];
  ctx.io.stdout(formatTable(
    ["ACCOUNT", "KEY", "MODEL", "REQUESTS", "INPUT", "OUTPUT", "CACHED", "COST_USD"],
    [
      ...rows.map((row) => [row.account, row.key_id, row.model, ...line(row)]),
      ["total", "", "", ...line(totals)],
    ],
    ["left", "left", "left", "right", "right", "right", "right", "right"],
  ));
  return 0;
}

function sumRows(rows: readonly UsageRow[]) {
  const totals = {
    requests: 0,
    input_tokens: 0,
    output_tokens: 0,
    cached_tokens: 0,
    cost_micros: 0,
  };
  for (const row of rows) {
    totals.requests += row.requests;
    totals.input_tokens += row.input_tokens;
    totals.output_tokens += row.output_tokens;
    totals.cached_tokens += row.cached_tokens;
    totals.cost_micros += row.cost_micros;
  }
  return totals;
}
