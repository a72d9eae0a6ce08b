/**
 * Non-stream load by wrk (Debian's `wrk` package), the load generator the issue's own
 * figures were taken with: one C thread with `concurrency` keep-alive connections, each
 * sending the next request as soon as the previous answer is whole. It costs ~20 µs of CPU
 * a request where the fetch loop (load.ts) costs ~120, on the two cores the servers share
 * with it (bench/README.md, "Late morning of 2026-11-27"). Streams stay on the fetch loop, which
 * checks each stream's end marker.
 */
import type { LoadPhase, LoadResult, Percentiles } from "./load.ts";

/** What to tell a user whose machine has no wrk. */
const WRK_MISSING = "The bench loads its non-stream phases with wrk, which is not " +
  "installed: install it (`apt-get install wrk` on Debian), or run with `--load fetch`.";

/** Throws WRK_MISSING unless `wrk` runs. */
export async function checkWrk(): Promise<void> {
  try {
    await new Deno.Command("wrk", { args: ["--version"], stdout: "null", stderr: "null" })
      .output();
  } catch {
    throw new Error(WRK_MISSING);
  }
}

/** `text` as a Lua string literal: printable ASCII as is, every other byte as `\ddd`. */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of new TextEncoder().encode(text)) {
    const printable = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    out += printable ? String.fromCharCode(byte) : `\\${String(byte).padStart(3, "0")}`;
  }
  return out + '"';
}

/** The wrk script that sends `phase`'s request: method, headers and body. */
export function wrkScript(phase: Pick<LoadPhase, "headers" | "body">): string {
  const lines = ['wrk.method = "POST"', `wrk.body = ${luaString(phase.body)}`];
  for (const [name, value] of Object.entries(phase.headers)) {
    lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
  }
  return lines.join("\n") + "\n";
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A wrk duration (`812.00us`, `3.51ms`, `1.02s`) in milliseconds. */
function milliseconds(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (!match) throw new Error(`wrk printed a time it cannot be read as: "${text}"`);
  const value = Number(match[1]);
  return match[2] === "us" ? value / 1000 : value * UNIT_MS[match[2]!]!;
}

/** Reads wrk's report (run with `--latency`) as the fetch loop's result. */
export function parseWrk(report: string): LoadResult {
  const total = /(\d+) requests in (\S+),/.exec(report);
  if (!total) throw new Error(`wrk's report has no request count: ${report.slice(0, 500)}`);
  const completed = Number(total[1]);
  const seconds = milliseconds(total[2]!) / 1000;
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s*${p}%\\s+(\\S+)`, "m").exec(report);
    if (!match) throw new Error(`wrk's report has no ${p}th percentile (run it with --latency).`);
    return milliseconds(match[1]!);
  };
  const mean = /Latency\s+(\S+)/.exec(report);
  const latency: Percentiles = {
    p50: percentile("50"),
    p99: percentile("99"),
    mean: mean ? milliseconds(mean[1]!) : 0,
  };
  const statusErrors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(report)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
    .exec(report);
  const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
  const errors = statusErrors + socketErrors;
  const firstError = statusErrors > 0
    ? `${statusErrors} answers were not 2xx`
    : socketErrors > 0
    ? `wrk's ${socket![0]}`
    : undefined;
  // wrk counts every answer, 2xx or not, among its requests.
  const requests = completed - statusErrors;
  return { requests, errors, firstError, seconds, requestsPerSecond: requests / seconds, latency };
}

/** Runs one non-stream phase under wrk (whole seconds, at least one). */
export async function runWrk(phase: LoadPhase): Promise<LoadResult> {
  if (phase.stream) throw new Error("wrk loads whole answers only: streams use the fetch loop.");
  const script = await Deno.makeTempFile({ prefix: "tollgate-bench-", suffix: ".lua" });
  try {
    await Deno.writeTextFile(script, wrkScript(phase));
    const seconds = Math.max(1, Math.round(phase.durationMs / 1000));
    const { success, stdout, stderr } = await new Deno.Command("wrk", {
      args: [
        "-t1",
        `-c${phase.concurrency}`,
        `-d${seconds}s`,
        "--latency",
        "-s",
        script,
        phase.url,
      ],
    }).output();
    const report = new TextDecoder().decode(stdout);
    if (!success) {
      throw new Error(`wrk failed: ${new TextDecoder().decode(stderr)}${report}`.slice(0, 500));
    }
    return parseWrk(report);
  } finally {
    await Deno.remove(script);
  }
}
