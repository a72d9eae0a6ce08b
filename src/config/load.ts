/** Loads the config file: TOML, `${VAR}` expansion from the environment, then the schema. */
import { dirname, isAbsolute, resolve } from "node:path";
import { parse, TomlError } from "smol-toml";
import { type Config, validateConfig } from "./schema.ts";
import { locateKeys } from "./locate.ts";
import { formatPath, type PathSegment, type Problem } from "./problems.ts";

/** Looks up an environment variable; `Deno.env.get` unless a test passes its own. */
export type EnvLookup = (name: string) => string | undefined;

/** A config that cannot be used; `problems` holds one `path.to.field: message` line each. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  readonly source: string;

  constructor(source: string, problems: readonly string[], options?: ErrorOptions) {
    const noun = problems.length === 1 ? "problem" : "problems";
    super(
      `Loading config "${source}" failed with ${problems.length} ${noun}; fix and try again:\n` +
        problems.map((problem) => `  ${problem}`).join("\n"),
      options,
    );
    this.name = "ConfigError";
    this.problems = problems;
    this.source = source;
  }
}

const VARIABLE = /\$\{([^}]*)\}/g;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How a config file is read. */
export interface LoadOptions {
  /** Environment for `${VAR}`; `Deno.env.get` unless a test passes its own. */
  env?: EnvLookup;
  /**
   * `required` (the default; what `serve` and `config check` need): an unset `${VAR}` is a
   * problem. `ignored` (commands that manage keys, accounts and usage): an unset variable
   * outside `[database]` is left as written, so they run without the channels' secrets;
   * it is still reported if the config cannot be read without it.
   */
  secrets?: "required" | "ignored";
}

/** How config text is read: `LoadOptions`, and where it came from. */
export interface ParseOptions extends LoadOptions {
  /** Names the config in errors: its path, or "(text)". */
  source?: string;
  /**
   * The folder a relative path (a `file:` database, the TLS files) is taken from: the config
   * file's own, so every command finds the same database whatever its working directory.
   * Unset: kept as written.
   */
  baseDir?: string;
}

/**
 * Reads, expands and validates the config file at `path`; throws ConfigError listing every
 * problem. A relative `file:` database path is resolved against the file's folder.
 */
export async function loadConfig(path: string, options: LoadOptions = {}): Promise<Config> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound
      ? "the file does not exist; pass --config PATH or set $TOLLGATE_CONFIG"
      : `the file cannot be read (${error instanceof Error ? error.message : String(error)})`;
    throw new ConfigError(path, [`(file): ${reason}`], { cause: error });
  }
  return parseConfigText(text, { ...options, source: path, baseDir: configDir(path) });
}

/** The folder of the config file at `path`, from which its relative paths are taken. */
export function configDir(path: string): string {
  return dirname(resolve(path));
}

/** Parses config text as `loadConfig` does, without the file. */
export function parseConfigText(text: string, options: ParseOptions = {}): Config {
  const { env = defaultEnv, source = "(text)", baseDir, secrets = "required" } = options;
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const reason = error.message.split("\n")[0]?.replace(/^Invalid TOML document: /, "");
      throw new ConfigError(
        source,
        [`line ${error.line}, column ${error.column}: TOML syntax error: ${reason}`],
        { cause: error },
      );
    }
    throw error;
  }

  const problems: Problem[] = [];
  const unset: Problem[] = [];
  const unexpanded: string[] = [];
  const expanded = expandVariables(raw, [], env, (path, message, missing) => {
    unexpanded.push(formatPath(path));
    // The database is opened by every command: its variables are always needed.
    const ignored = missing && secrets === "ignored" && path[0] !== "database";
    (ignored ? unset : problems).push({ path, message });
  });

  const result = validateConfig(expanded);
  if ("config" in result && problems.length === 0) {
    if (baseDir !== undefined) resolvePaths(result.config, baseDir);
    return result.config;
  }
  if ("problems" in result) {
    // The config is unreadable: an unset variable may be why, so it is reported after all.
    problems.push(...unset);
    for (const problem of result.problems) {
      // A value left as "${VAR}" is already reported; its schema error would only repeat it.
      const path = formatPath(problem.path);
      if (!unexpanded.some((prefix) => isWithin(path, prefix))) problems.push(problem);
    }
  }
  const locate = locateKeys(text);
  throw new ConfigError(
    source,
    problems.map((problem) => {
      const line = locate(problem.keyPath ?? problem.path);
      const where = line === undefined ? "" : ` (line ${line})`;
      return `${formatPath(problem.path)}: ${problem.message}${where}`;
    }),
  );
}

/** Picks the config file: the flag, else $TOLLGATE_CONFIG, else ./config.toml if present, else ./config.example.toml. */
export function resolveConfigPath(flag?: string, env: EnvLookup = defaultEnv): string {
  if (flag) return flag;
  const fromEnv = env("TOLLGATE_CONFIG");
  if (fromEnv) return fromEnv;
  try {
    if (Deno.statSync("config.toml").isFile) return "config.toml";
  } catch {
    // No config.toml: fall through to the example, which runs with no set-up.
  }
  return "config.example.toml";
}

/** Whether debug log lines are wanted: `TOLLGATE_LOG_LEVEL=debug`. */
export function debugLogging(env: EnvLookup = defaultEnv): boolean {
  return env("TOLLGATE_LOG_LEVEL")?.toLowerCase() === "debug";
}

/** The database URL to open: $TOLLGATE_DATABASE_URL when set, else the config's. */
export function databaseUrl(config: Config, env: EnvLookup = defaultEnv): string {
  return env("TOLLGATE_DATABASE_URL") || config.database.url;
}

/** Makes the config's relative file paths (database, TLS) absolute from `baseDir`. */
function resolvePaths(config: Config, baseDir: string): void {
  config.database.url = fileUrlFrom(config.database.url, baseDir);
  const { server } = config;
  if (server.tls_cert !== "") server.tls_cert = resolve(baseDir, server.tls_cert);
  if (server.tls_key !== "") server.tls_key = resolve(baseDir, server.tls_key);
}

/**
 * A `file:` URL with a relative path made absolute from `baseDir`; any other URL, an
 * absolute path and `:memory:` as they are. Query options stay.
 */
export function fileUrlFrom(url: string, baseDir: string): string {
  const match = /^file:(?!\/\/)([^?]*)(.*)$/s.exec(url);
  if (match === null) return url;
  const [, path = "", query = ""] = match;
  if (path === "" || path === ":memory:" || isAbsolute(path)) return url;
  return `file:${resolve(baseDir, path)}${query}`;
}

/** Expands `${VAR}` in every string value (not keys), reporting each missing variable. */
function expandVariables(
  value: unknown,
  path: PathSegment[],
  env: EnvLookup,
  report: (path: PathSegment[], message: string, missing: boolean) => void,
): unknown {
  if (typeof value === "string") {
    const missing: string[] = [];
    const result = value.replace(VARIABLE, (whole, name: string) => {
      if (!VARIABLE_NAME.test(name)) {
        report(
          path,
          `"${whole}" is not a valid variable reference; use \${NAME} with A-Z, 0-9, _`,
          false,
        );
        return whole;
      }
      const found = env(name);
      if (found === undefined) {
        missing.push(name);
        return whole;
      }
      return found;
    });
    for (const name of missing) {
      report(path, `environment variable "${name}" is not set; set it or change this value`, true);
    }
    return result;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => expandVariables(item, [...path, index], env, report));
  }
  // TOML dates are objects too, but hold no string to expand.
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    return Object.fromEntries(
      Object.entries(value).map((
        [key, item],
      ) => [key, expandVariables(item, [...path, key], env, report)]),
    );
  }
  return value;
}

/** Whether a formatted path is `prefix` itself or lies under it. */
function isWithin(path: string, prefix: string): boolean {
  return path === prefix || (path.startsWith(prefix) && /^[.[]/.test(path.slice(prefix.length)));
}

function defaultEnv(name: string): string | undefined {
  return Deno.env.get(name);
}
