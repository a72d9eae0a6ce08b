/**
 * A command described once: its usage line, a sentence on what it does, its flags with a
 * line each and its positional arguments. The same description parses its arguments
 * (strictly: an unknown flag is bad usage) and prints its `--help`.
 */
import { type CliContext, expectPositionals, parseCommandArgs } from "./context.ts";
import { usageError } from "./output.ts";

/** One flag: a string (`value` names it in the help) or a boolean, and a line on it. */
export interface Flag {
  type: "string" | "boolean";
  value?: string;
  help: string;
}

/** A command's flags by name (without the dashes). */
export type Flags = Record<string, Flag>;

/** A command: usage, summary, flags and positionals, and what it runs. */
export interface CommandSpec<F extends Flags = Flags> {
  /** The usage line(s), as in design.md. */
  usage: string;
  /** What the command does, in a sentence. */
  summary: string;
  flags: F;
  /** Names of the positional arguments, in order (`KEY_ID`). */
  positionals?: readonly string[];
}

/** What a command runs with: its parsed flags and positionals. */
export interface ParsedCommand<F extends Flags> {
  values: { [K in keyof F]?: F[K]["type"] extends "boolean" ? boolean : string } & {
    config?: string;
  };
  positionals: string[];
}

/** The flag every command takes. */
export const CONFIG_FLAG: Flag = {
  type: "string",
  value: "PATH",
  help: "the config file (else $TOLLGATE_CONFIG, ./config.toml, ./config.example.toml)",
};

/** `--json`, which the listing commands take. */
export const JSON_FLAG = {
  type: "boolean",
  help: "print JSON (the shape design.md fixes) instead of a table",
} as const satisfies Flag;

const HELP_FLAG: Flag = { type: "boolean", help: "show this help" };

/** Parses `args` by `spec`; an unknown flag or a wrong count of positionals is bad usage. */
export function parseCommand<F extends Flags>(
  args: string[],
  spec: CommandSpec<F>,
): ParsedCommand<F> {
  const options: Record<string, { type: "string" | "boolean" }> = { config: { type: "string" } };
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = { type: flag.type };
  const { values, positionals } = parseCommandArgs(args, options, spec.usage);
  expectPositionals(positionals, spec.positionals ?? [], spec.usage);
  return { values: values as ParsedCommand<F>["values"], positionals };
}

/** A command's `--help`: usage, summary, and each flag with its line. */
export function helpOf(spec: CommandSpec): string {
  const flags: [string, Flag][] = [
    ...Object.entries(spec.flags),
    ["config", CONFIG_FLAG],
    ["help", HELP_FLAG],
  ];
  const names = flags.map(([name, flag]) => `--${name}${flag.value ? ` ${flag.value}` : ""}`);
  const width = Math.max(...names.map((name) => name.length));
  return [
    "Usage:",
    ...spec.usage.split("\n").map((line) => `  ${line}`),
    "",
    spec.summary,
    "",
    "Options:",
    ...flags.map(([, flag], i) => `  ${names[i]!.padEnd(width)}  ${flag.help}`),
  ].join("\n");
}

/** A subcommand of a group: its description and what it runs. */
export interface Subcommand<F extends Flags = Flags> extends CommandSpec<F> {
  run(parsed: ParsedCommand<F>, ctx: CliContext): Promise<number>;
}

/** A subcommand, typed by its flags (an object literal keeps them). */
export function subcommand<const F extends Flags>(spec: Subcommand<F>): Subcommand {
  return spec as unknown as Subcommand;
}

/** A top-level command as the dispatcher sees it. */
export interface Command {
  /** Usage lines, for the overall usage. */
  usage: string;
  /** The help of the command, or of the subcommand `args` name. */
  help(args: string[]): string;
  run(args: string[], ctx: CliContext): Promise<number>;
}

/** A command of one subcommand's shape (`usage`, `requests`). */
export function single(spec: Subcommand): Command {
  return {
    usage: spec.usage,
    help: () => helpOf(spec),
    run: (args, ctx) => spec.run(parseCommand(args, spec), ctx),
  };
}

/** A group of subcommands (`key create`, `key list`, ...), dispatched by the first argument. */
export function group(name: string, subcommands: Readonly<Record<string, Subcommand>>): Command {
  const all = Object.values(subcommands);
  const usage = [...new Set(all.map((sub) => sub.usage))].join("\n");
  const find = (word: string | undefined) =>
    word !== undefined && Object.hasOwn(subcommands, word) ? subcommands[word] : undefined;
  return {
    usage,
    help(args) {
      const sub = find(args[0]);
      if (sub) return helpOf(sub);
      const width = Math.max(...Object.keys(subcommands).map((word) => word.length));
      return [
        "Usage:",
        ...usage.split("\n").map((line) => `  ${line}`),
        "",
        "Commands:",
        ...Object.entries(subcommands).map(([word, sub]) =>
          `  ${name} ${word.padEnd(width)}  ${sub.summary}`
        ),
        "",
        `"tollgate ${name} COMMAND --help" lists a command's flags.`,
      ].join("\n");
    },
    async run(args, ctx) {
      const [word, ...rest] = args;
      if (word === undefined) throw usageError("Missing subcommand", usage);
      const sub = find(word);
      if (sub === undefined) throw usageError(`Unknown subcommand "${name} ${word}"`, usage);
      return await sub.run(parseCommand(rest, sub), ctx);
    },
  };
}
