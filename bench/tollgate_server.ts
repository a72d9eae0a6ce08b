/**
 * tollgate as the bench runs it: `startServer` on a temp-dir config and SQLite file, with
 * the request log on stdout as in production (bench/processes.ts drains the pipe) and a
 * silent logger. The config has:
 *
 * - a chat channel to the fake upstream serving `bench-unpriced` (no price) and
 *   `bench-priced` (priced like a small hosted model);
 * - one channel of each protocol serving `bench-<protocol>` (unpriced; the direction
 *   phase's models);
 * - chat channels to the fake's slow and idle streams serving `bench-slow` and
 *   `bench-idle`, priced as `bench-priced`;
 * - group `default`, without limits, and group `limited`, with `rpm`, `tpm` and
 *   `concurrency` too high ever to refuse (what the limiter costs when it lets all pass).
 *
 * Keys: one of an unlimited account (for the unpriced models), and two of an account
 * with a large balance (priced models: every request takes and settles a real hold), in
 * `default` and in `limited`.
 *
 * Run as a child of bench/run.ts: `deno run -A --unstable-no-legacy-abort
 * bench/tollgate_server.ts UPSTREAM_URL [--no-observability] [--keepalive-ms N]`; prints
 * `{"url","unpricedKey","pricedKey","limitedKey","configPath","observedConfig","quietConfig"}`:
 * the bench switches the request log and metrics by writing one of the two configs to
 * `configPath` (a reload). `--no-observability` starts with `[server] metrics = false` and
 * `request_log = false`.
 */
import { parseArgs } from "node:util";
import { silentLogger } from "../src/log.ts";
import { startServer } from "../src/server.ts";
import { announce, stdinClosed } from "./child.ts";
import { protocolModel, PROTOCOLS } from "./protocols.ts";

/** Options of one bench tollgate. */
export interface BenchConfigOptions {
  dbPath: string;
  /** The fake upstream's root URL. */
  upstream: string;
  /** `[server] metrics` and `request_log` (both on by default, as in production). */
  observability: boolean;
  /** `[server] keepalive_ms`; the default (15 s) unless given. */
  keepaliveMs?: number;
  /**
   * Budgets on every key and account, far above what the bench spends, the alerts'
   * thresholds and two balance floors under the funded account's balance: what budgets and
   * alert checks cost a request that passes them (`BENCH_BUDGETS=1`, which bench/ab.ts's
   * other side, an older checkout, ignores; `ab.ts --base . --env BENCH_BUDGETS=1` sets it
   * on one side only).
   */
  budgets?: boolean;
}

const LIMITS = "context_window = 128000\nmax_output_tokens = 4096";
const PRICES = "input_price = 0.15\noutput_price = 0.60";
/** Limits of group `limited`: set, but far above anything the bench sends. */
export const NEVER_REFUSING_LIMITS = {
  rpm: 100_000_000,
  tpm: 10_000_000_000,
  concurrency: 100_000,
};

function channelSection(name: string, protocol: string, baseUrl: string, models: string[]) {
  return `[[channels]]
name = "${name}"
protocol = "${protocol}"
base_url = "${baseUrl}"
models = ${JSON.stringify(models)}
keys = ["sk-bench-upstream"]
groups = ["default", "limited"]
`;
}

/** The config file of a bench tollgate. */
export function benchConfig(options: BenchConfigOptions): string {
  const { upstream } = options;
  const server = [
    ...(options.keepaliveMs === undefined ? [] : [`keepalive_ms = ${options.keepaliveMs}`]),
    ...(options.observability ? [] : ["metrics = false", "request_log = false"]),
  ];
  const limits = NEVER_REFUSING_LIMITS;
  const budgets = options.budgets ?? Deno.env.get("BENCH_BUDGETS") === "1";
  return [
    `[server]\n${server.join("\n")}\n`,
    `[database]\nurl = "file:${options.dbPath}"\n`,
    ...(budgets
      ? [
        `[budgets]\naccount = { usd = 1000000000, period = "month" }\n`,
        `[alerts]\nthresholds = [0.5, 0.8, 0.95, 1.0]\nbalance_below_usd = [10, 1]\n`,
      ]
      : []),
    `[groups.default]\nmodels = ["*"]\n${
      budgets ? 'key_budget = { usd = 1000000000, period = "month" }\n' : ""
    }`,
    `[groups.limited]\nmodels = ["*"]\nrpm = ${limits.rpm}\ntpm = ${limits.tpm}\n` +
    `concurrency = ${limits.concurrency}\n`,
    `[models."bench-unpriced"]\n${LIMITS}\n`,
    ...["bench-priced", "bench-slow", "bench-idle"].map((model) =>
      `[models."${model}"]\n${LIMITS}\n${PRICES}\n`
    ),
    ...PROTOCOLS.map((protocol) => `[models."${protocolModel(protocol)}"]\n${LIMITS}\n`),
    channelSection("bench-upstream", "chat", `${upstream}/v1`, ["bench-unpriced", "bench-priced"]),
    ...PROTOCOLS.map((protocol) =>
      channelSection(`bench-${protocol}-upstream`, protocol, `${upstream}/v1`, [
        protocolModel(protocol),
      ])
    ),
    channelSection("bench-slow-upstream", "chat", `${upstream}/slow/v1`, ["bench-slow"]),
    channelSection("bench-idle-upstream", "chat", `${upstream}/idle/v1`, ["bench-idle"]),
  ].join("\n");
}

/**
 * Creates the bench's accounts and keys in their own process, as an operator's CLI does:
 * the server then starts on a database that has keys, as every start but the first does.
 */
async function createKeys(dbPath: string): Promise<Record<string, string>> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("bench_keys.ts", import.meta.url).pathname, dbPath],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error("Creating the bench's keys failed.");
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      "no-observability": { type: "boolean", default: false },
      "keepalive-ms": { type: "string" },
    },
  });
  const upstream = positionals[0];
  if (!upstream) {
    throw new Error(
      "Usage: tollgate_server.ts UPSTREAM_URL [--no-observability] [--keepalive-ms N]",
    );
  }
  const keepalive = values["keepalive-ms"];
  const dir = await Deno.makeTempDir({ prefix: "tollgate_bench_" });
  const configPath = `${dir}/config.toml`;
  const dbPath = `${dir}/tollgate.db`;
  const configOf = (observability: boolean) =>
    benchConfig({
      dbPath,
      upstream,
      observability,
      keepaliveMs: keepalive === undefined ? undefined : Number(keepalive),
    });
  await Deno.writeTextFile(configPath, configOf(!values["no-observability"]));
  const keys = await createKeys(dbPath);
  // No `requestLog` option: the request log goes to stdout, as `tollgate serve` writes it.
  const server = await startServer({ configPath, log: silentLogger, port: 0 });
  announce({
    url: server.url,
    ...keys,
    configPath,
    observedConfig: configOf(true),
    quietConfig: configOf(false),
  });
  await stdinClosed();
  await server.shutdown();
  await Deno.remove(dir, { recursive: true });
  Deno.exit(0);
}
