/** `tollgate config check`: validate the config and summarise what it sets up. */
import { databaseUrl } from "../config/load.ts";
import { type Config, configJsonSchema } from "../config/schema.ts";
import { configWarnings } from "../config/warnings.ts";
import {
  type CliContext,
  CONFIG_OPTION,
  dispatch,
  expectPositionals,
  loadCliConfig,
  parseCommandArgs,
} from "./context.ts";
import { formatTable, redactUrl } from "./output.ts";

/** Usage lines of the `config` command group. */
export const CONFIG_USAGE = "tollgate config check [--config PATH]\n" +
  "tollgate config schema                 (the JSON Schema of config.toml, for editors)";

/** Runs `config <subcommand> ...`; returns the exit status. */
export function runConfigCommand(args: string[], ctx: CliContext): Promise<number> {
  return dispatch(args, ctx, "config", CONFIG_USAGE, {
    check: checkCommand,
    schema: schemaCommand,
  });
}

async function checkCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CONFIG_OPTION, CONFIG_USAGE);
  expectPositionals(positionals, [], CONFIG_USAGE);
  // Checks what `serve` would refuse, an unset secret included.
  const { config, configPath } = await loadCliConfig(ctx, values.config, "required");
  ctx.io.stdout(summarizeConfig(config, configPath, databaseUrl(config, ctx.env)));
  // Warnings, not errors: serve would run this config.
  for (const warning of configWarnings(config)) ctx.io.stderr(`Warning: ${warning}.`);
  return 0;
}

// Reads no config: the schema is what any config may say.
function schemaCommand(args: string[], ctx: CliContext): Promise<number> {
  const { positionals } = parseCommandArgs(args, CONFIG_OPTION, CONFIG_USAGE);
  expectPositionals(positionals, [], CONFIG_USAGE);
  ctx.io.stdout(JSON.stringify(configJsonSchema(), null, 2));
  return Promise.resolve(0);
}

/** A human summary of a valid config: where it listens, what it serves and to whom. */
export function summarizeConfig(config: Config, configPath: string, dbUrl: string): string {
  const groups = Object.keys(config.groups);
  const models = Object.keys(config.models);
  const lines = [
    `Config "${configPath}" is valid.`,
    `  listen:        ${config.server.listen}`,
    `  entry points:  ${config.server.entry_points.join(", ") || "(none)"}`,
    `  groups:        ${groups.length}${groups.length ? ` (${groups.join(", ")})` : ""}`,
    `  models:        ${models.length}${models.length ? ` (${models.join(", ")})` : ""}`,
    `  channels:      ${config.channels.length}`,
  ];
  if (config.channels.length > 0) {
    const table = formatTable(
      ["NAME", "PROTOCOL", "MODELS", "GROUPS", "KEYS"],
      config.channels.map((channel) => [
        channel.name,
        channel.protocol,
        channel.models.join(","),
        channel.groups.join(","),
        // Counted, never shown: they are upstream credentials.
        String(channel.keys.length),
      ]),
      ["left", "left", "left", "left", "right"],
    );
    lines.push(...table.split("\n").map((line) => `    ${line}`));
  }
  lines.push(`  database:      ${redactUrl(dbUrl)}`);
  return lines.join("\n");
}
