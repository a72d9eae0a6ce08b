/** The command line: dispatches argv to a command group and turns failures into exit statuses. */
import { ConfigError, resolveConfigPath } from "../config/load.ts";
import { ACCOUNT_USAGE, runAccountCommand } from "./account.ts";
import { CONFIG_USAGE, runConfigCommand } from "./config.ts";
import {
  type CliContext,
  type CliDeps,
  CONFIG_OPTION,
  expectPositionals,
  parseCommandArgs,
} from "./context.ts";
import { DOCTOR_USAGE, runDoctorCommand } from "./doctor.ts";
import { KEY_USAGE, runKeyCommand } from "./key.ts";
import { REQUESTS_USAGE, runRequestsCommand } from "./requests.ts";
import { runUsageCommand, USAGE_USAGE } from "./usage.ts";
import { CliError, type CliIo, consoleIo, usageError } from "./output.ts";

export type { CliDeps, ServeCommand } from "./context.ts";
export type { CliIo } from "./output.ts";

/** One top-level command: its usage lines and how to run it. */
interface Command {
  usage: string;
  run(args: string[], ctx: CliContext): Promise<number>;
}

const SERVE_USAGE = "tollgate serve [--config PATH]              (the default command)";

const COMMANDS: Readonly<Record<string, Command>> = {
  serve: { usage: SERVE_USAGE, run: runServeCommand },
  config: { usage: CONFIG_USAGE, run: runConfigCommand },
  account: { usage: ACCOUNT_USAGE, run: runAccountCommand },
  key: { usage: KEY_USAGE, run: runKeyCommand },
  usage: { usage: USAGE_USAGE, run: runUsageCommand },
  requests: { usage: REQUESTS_USAGE, run: runRequestsCommand },
  doctor: { usage: DOCTOR_USAGE, run: runDoctorCommand },
};

/** The usage lines of every command. */
export function usageText(): string {
  return [
    ...Object.values(COMMANDS).map((command) => command.usage),
    "Every command takes --config PATH (else $TOLLGATE_CONFIG, ./config.toml, ./config.example.toml).",
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
  const [first, ...rest] = args;
  if (first === "help" || first === "--help" || first === "-h") {
    io.stdout(formatUsage(usageText()));
    return 0;
  }
  // With no command, or only options, tollgate serves: `tollgate --config x.toml`.
  const [name, commandArgs] = first === undefined || first.startsWith("-")
    ? ["serve", args]
    : [first, rest];
  const command = COMMANDS[name];
  try {
    if (command === undefined) throw usageError(`Unknown command "${name}"`, usageText());
    if (commandArgs.includes("--help") || commandArgs.includes("-h")) {
      io.stdout(formatUsage(command.usage));
      return 0;
    }
    return await command.run(commandArgs, ctx);
  } catch (error) {
    return report(io, error);
  }
}

async function runServeCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, CONFIG_OPTION, SERVE_USAGE);
  expectPositionals(positionals, [], SERVE_USAGE);
  const serve = ctx.commands.serve;
  if (serve === undefined) {
    throw usageError('Command "serve" is not available in this build', usageText());
  }
  return await serve({ configPath: resolveConfigPath(values.config, ctx.env) });
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
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`tollgate: the command failed: ${message.split("\n")[0]}`);
  return 1;
}

function formatUsage(usage: string): string {
  return `Usage:\n${usage.split("\n").map((line) => `  ${line}`).join("\n")}`;
}
