/** Plumbing every CLI command shares: its dependencies, argument parsing, config and database. */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import {
  databaseUrl,
  type EnvLookup,
  loadConfig,
  type LoadOptions,
  resolveConfigPath,
} from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { type Db, openDatabase } from "../db/database.ts";
import { type CliIo, redactUrl, usageError, userError } from "./output.ts";

/** Starts the gateway; provided by the server module, which the CLI does not import. */
export type ServeCommand = (options: { configPath: string }) => Promise<number>;

/** What `runCli` may be given instead of the real process environment and clock. */
export interface CliDeps {
  /** Environment lookup for $TOLLGATE_CONFIG, $TOLLGATE_DATABASE_URL and `${VAR}`. */
  env?: EnvLookup;
  /** Clock in ms since the epoch, for `created_at` and expiry display. */
  now?: () => number;
  /** Commands implemented outside `src/cli/`. */
  commands?: { serve?: ServeCommand };
}

/** What a command runs with. */
export interface CliContext {
  io: CliIo;
  env?: EnvLookup;
  now: () => number;
  commands: { serve?: ServeCommand };
}

/** A loaded config and the path it came from. */
export interface LoadedConfig {
  config: Config;
  configPath: string;
}

/** A loaded config and the migrated database it names. */
export interface Session extends LoadedConfig {
  db: Db;
}

/** The `--config` option every command accepts. */
export const CONFIG_OPTION = { config: { type: "string" } } as const;

/** One subcommand of a command group: runs with the arguments after its name. */
export type Subcommand = (args: string[], ctx: CliContext) => Promise<number>;

/**
 * Runs `<group> <subcommand> ...` with the subcommand the first argument names; a missing
 * or unknown one is bad usage showing `usage`. Returns the exit status.
 */
export async function dispatch(
  args: string[],
  ctx: CliContext,
  group: string,
  usage: string,
  subcommands: Readonly<Record<string, Subcommand>>,
): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined) throw usageError("Missing subcommand", usage);
  const run = Object.hasOwn(subcommands, subcommand) ? subcommands[subcommand] : undefined;
  if (run === undefined) throw usageError(`Unknown subcommand "${group} ${subcommand}"`, usage);
  return await run(rest, ctx);
}

/** Parses a command's arguments strictly; any parse problem is bad usage showing `usage`. */
export function parseCommandArgs<const O extends ParseArgsOptionsConfig>(
  args: string[],
  options: O,
  usage: string,
) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node's texts run on with hints about `--`; the first sentence is the useful part.
    throw usageError(message.split(/\.\s|\n/)[0]?.replace(/\.$/, "") ?? message, usage);
  }
}

/** Checks the positional count: exactly `names` (in order), naming the missing or extra one. */
export function expectPositionals(
  positionals: readonly string[],
  names: readonly string[],
  usage: string,
): string[] {
  if (positionals.length < names.length) {
    throw usageError(`Missing argument ${names[positionals.length]}`, usage);
  }
  if (positionals.length > names.length) {
    throw usageError(`Unexpected argument "${positionals[names.length]}"`, usage);
  }
  return [...positionals];
}

/**
 * Loads the config named by `--config` (or the default search); throws ConfigError. The
 * channels' secrets are not needed unless `secrets` is "required" (what `serve` would need).
 */
export async function loadCliConfig(
  ctx: CliContext,
  flag?: string,
  secrets: LoadOptions["secrets"] = "ignored",
): Promise<LoadedConfig> {
  const configPath = resolveConfigPath(flag, ctx.env);
  return { config: await loadConfig(configPath, { env: ctx.env, secrets }), configPath };
}

/** Runs `fn` with the config and its migrated database, closing the database afterwards. */
export async function withDatabase<T>(
  ctx: CliContext,
  flag: string | undefined,
  fn: (session: Session) => Promise<T>,
): Promise<T> {
  const loaded = await loadCliConfig(ctx, flag);
  const url = databaseUrl(loaded.config, ctx.env);
  const db = await openDatabase(url);
  try {
    const result = await db.migrate();
    if (result.error) {
      throw userError(
        `Migrating database "${redactUrl(url)}" failed at "${result.error.name}": ` +
          `${result.error.message}; restore a backup or use a newer tollgate.`,
      );
    }
    return await fn({ ...loaded, db });
  } finally {
    await db.close();
  }
}
