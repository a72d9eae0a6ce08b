/** The command line: dispatches argv to a command and turns failures into exit statuses. */
import { ConfigError, resolveConfigPath } from "../config/load.ts";
import { GatewayError } from "../errors.ts";
import { VERSION } from "../version.ts";
import { ACCOUNT_COMMAND } from "./account.ts";
import { ALERTS_COMMAND } from "./alerts.ts";
import { type Command, helpOf, single, subcommand } from "./command.ts";
import { CONFIG_USAGE, runConfigCommand } from "./config.ts";
import type { CliContext, CliDeps } from "./context.ts";
import { DOCTOR_COMMAND } from "./doctor.ts";
import { KEY_COMMAND } from "./key.ts";
import { REQUESTS_COMMAND } from "./requests.ts";
import { USAGE_COMMAND } from "./usage.ts";
import { CliError, type CliIo, consoleIo, usageError } from "./output.ts";

export type { CliDeps, ServeCommand } from "./context.ts";
export type { CliIo } from "./output.ts";

const serve = subcommand({
  usage: "tollgate serve [--config PATH]              (the default command)",
  summary:
    "Starts the gateway and serves until SIGINT or SIGTERM, then finishes what is in flight.",
  flags: {},
  async run({ values }, ctx) {
    const start = ctx.commands.serve;
    if (start === undefined) {
      throw usageError('Command "serve" is not available in this build', usageText());
    }
    return await start({ configPath: resolveConfigPath(values.config, ctx.env) });
  },
});

const CONFIG_CHECK = {
  usage: CONFIG_USAGE,
  summary: "Validates the config, prints a summary, and exits 1 on an error.",
  flags: {},
};

const COMMANDS: Readonly<Record<string, Command>> = {
  serve: single(serve),
  config: { usage: CONFIG_USAGE, help: () => helpOf(CONFIG_CHECK), run: runConfigCommand },
  account: ACCOUNT_COMMAND,
  key: KEY_COMMAND,
  usage: USAGE_COMMAND,
  requests: REQUESTS_COMMAND,
  alerts: ALERTS_COMMAND,
  doctor: DOCTOR_COMMAND,
};

/** The usage lines of every command. */
export function usageText(): string {
  return [
    ...Object.values(COMMANDS).map((command) => command.usage),
    "tollgate --version",
    "--config PATH goes before or after the command (else $TOLLGATE_CONFIG, ./config.toml, " +
    "./config.example.toml); --help after any command lists its flags.",
  ].join("\n");
}

/** Runs the CLI with `args` (argv without the program); resolves to the exit status, never throws. */
export async function runCli(
  args: string[],
  io: CliIo = consoleIo(),
  deps: CliDeps = {},
): Promise<number> {
  const ctx: CliContext = {
    io,
    env: deps.env,
    now: deps.now ?? Date.now,
    commands: deps.commands ?? {},
  };
  const { rest, config } = takeConfig(args);
  const [first, ...others] = rest;
  if (first === "--version" || first === "-V") {
    io.stdout(`tollgate ${VERSION}`);
    return 0;
  }
  if (first === "help" || first === "--help" || first === "-h") {
    const named = others[0] === undefined ? undefined : COMMANDS[others[0]];
    io.stdout(named ? named.help(others.slice(1)) : formatUsage(usageText()));
    return 0;
  }
  // With no command, or only options, tollgate serves: `tollgate --config x.toml`.
  const [name, commandArgs] = first === undefined || first.startsWith("-")
    ? ["serve", rest]
    : [first, others];
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  try {
    if (command === undefined) throw usageError(`Unknown command "${name}"`, usageText());
    if (commandArgs.includes("--help") || commandArgs.includes("-h")) {
      io.stdout(command.help(commandArgs));
      return 0;
    }
    const withConfig = config === undefined ? commandArgs : [...commandArgs, "--config", config];
    return await command.run(withConfig, ctx);
  } catch (error) {
    return report(io, error);
  }
}

/**
 * `--config PATH` (or `--config=PATH`) taken out of `args` wherever it stands, so that it
 * may come before the command as well as after; the last one counts. A `--config` without
 * a value stays, for the command's parser to refuse.
 */
function takeConfig(args: readonly string[]): { rest: string[]; config?: string } {
  const rest: string[] = [];
  let config: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    if (arg.startsWith("--config=")) {
      config = arg.slice("--config=".length);
    } else if (arg === "--config" && args[i + 1] !== undefined && !args[i + 1]!.startsWith("-")) {
      config = args[++i];
    } else {
      rest.push(arg);
    }
  }
  return { rest, config };
}

/** Writes a failure to stderr, without a stack trace, and picks the exit status. */
function report(io: CliIo, error: unknown): number {
  if (error instanceof CliError) {
    io.stderr(`tollgate: ${error.message}`);
    if (error.usage) io.stderr(formatUsage(error.usage));
    return error.exitCode;
  }
  if (error instanceof ConfigError) {
    io.stderr(error.message);
    return 1;
  }
  // The admin service's refusals (an unknown account, a revoked key) are written for people.
  if (error instanceof GatewayError) {
    io.stderr(`tollgate: ${error.message}`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`tollgate: the command failed: ${message.split("\n")[0]}`);
  return 1;
}

function formatUsage(usage: string): string {
  return `Usage:\n${usage.split("\n").map((line) => `  ${line}`).join("\n")}`;
}
