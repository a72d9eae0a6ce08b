/** The logger: one JSON object a line on stderr, secrets never included. */

/** Fields of one log line. */
export type LogFields = Record<string, unknown>;

/** Writes structured log lines. */
export interface Logger {
  /** Details for diagnosing one request (fields dropped in translation, say); off by default. */
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A logger writing JSON lines through `write` (stderr by default); `debug` lines only when asked. */
export function createLogger(
  write: (line: string) => void = (line) => console.error(line),
  now: () => number = Date.now,
  options: { debug?: boolean } = {},
): Logger {
  const log = (level: string) => (message: string, fields: LogFields = {}) =>
    write(JSON.stringify({ time: new Date(now()).toISOString(), level, message, ...fields }));
  return {
    debug: options.debug ? log("debug") : () => {},
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
  };
}

/** A logger that drops everything, for tests. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** An error's message and cause chain for the log, without stack traces of user errors. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    parts.push(e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(" <- ");
}
