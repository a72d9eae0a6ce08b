/** What the CLI writes and how: the io sinks, its error type, tables and JSON. */
import { formatUsd } from "../billing/money.ts";

/** Where the CLI writes; each call is one line or block, the sink adds the newline. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process console, for real runs; tests pass their own sinks. */
export function consoleIo(): CliIo {
  return {
    stdout: (text) => console.log(text),
    stderr: (text) => console.error(text),
  };
}

/**
 * A failure the CLI reports as one line and an exit status: 1 for a user error
 * (unknown account, revoked key), 2 for bad usage (then `usage` is shown too).
 */
export class CliError extends Error {
  readonly exitCode: 1 | 2;
  readonly usage?: string;

  constructor(exitCode: 1 | 2, message: string, usage?: string) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
    this.usage = usage;
  }
}

/** A user error: the command was well-formed but cannot be done (exit 1). */
export function userError(message: string): CliError {
  return new CliError(1, message);
}

/** Bad usage: unknown command or flag, missing or malformed argument (exit 2). */
export function usageError(message: string, usage: string): CliError {
  return new CliError(2, message, usage);
}

/** How a table column is aligned; numbers and money read best right-aligned. */
export type Align = "left" | "right";

/** Lays rows out as aligned columns under a header, two spaces apart. */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  align: readonly Align[] = [],
): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length))
  );
  const line = (cells: readonly string[]) =>
    widths
      .map((width, column) => {
        const cell = cells[column] ?? "";
        return align[column] === "right" ? cell.padStart(width) : cell.padEnd(width);
      })
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)].join("\n");
}

/** Writes one JSON document to stdout, pretty-printed: scripts parse it, people read it. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(JSON.stringify(value, null, 2));
}

/** A USD number of the JSON shapes (exact to the micro-USD) as people read it ("12.50"). */
export function usdText(usd: number): string {
  return formatUsd(Math.round(usd * 1e6));
}

/** Milliseconds since the epoch as ISO 8601 (UTC), or null. */
export function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** Hides a URL's password and any auth token, so summaries and errors are safe to share. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  // `file:` URLs carry neither; rebuilding them would only risk changing the path shown.
  if (parsed.protocol === "file:") return url;
  let changed = false;
  if (parsed.password) {
    parsed.password = "***";
    changed = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (/token|secret|password|key/i.test(name)) {
      parsed.searchParams.set(name, "***");
      changed = true;
    }
  }
  return changed ? parsed.toString() : url;
}
