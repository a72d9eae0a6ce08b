/** For tests only: runs the CLI against a temp config and database, capturing its output. */
import { join } from "node:path";
import type { EnvLookup } from "../config/load.ts";
import { openDatabase } from "../db/database.ts";
import { runCli } from "./main.ts";
import type { CliDeps } from "./context.ts";

/** What one CLI run produced. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temp directory holding `config.toml` and the database it names. */
export interface CliHarness {
  dir: string;
  configPath: string;
  dbPath: string;
  /** Runs `tollgate ARGS --config <temp config>` (unless ARGS has --config) with an empty environment. */
  run(args: string[], deps?: CliDeps): Promise<CliRun>;
}

/** A config with groups `default` and `vip` and the echo channel; the database sits beside it. */
export function harnessConfig(dbPath: string): string {
  return [
    `[database]`,
    `url = "file:${dbPath}"`,
    `[groups.default]`,
    `[groups.vip]`,
    `models = ["echo"]`,
    `[models.echo]`,
    `context_window = 32768`,
    `[[channels]]`,
    `name = "echo"`,
    `protocol = "echo"`,
    `models = ["echo"]`,
    `groups = ["default", "vip"]`,
    "",
  ].join("\n");
}

/** Runs `fn` with a fresh harness and removes its directory afterwards. */
export async function withCli(fn: (cli: CliHarness) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_cli_" });
  const configPath = join(dir, "config.toml");
  const dbPath = join(dir, "tollgate.db");
  await Deno.writeTextFile(configPath, harnessConfig(dbPath));
  const emptyEnv: EnvLookup = () => undefined;
  const harness: CliHarness = {
    dir,
    configPath,
    dbPath,
    async run(args, deps = {}) {
      const stdout: string[] = [];
      const stderr: string[] = [];
      const code = await runCli(
        args.includes("--config") ? args : [...args, "--config", configPath],
        { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text) },
        { env: emptyEnv, ...deps },
      );
      return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") };
    },
  };
  try {
    await fn(harness);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A request to settle into the ledger: who made it, when, at what cost. */
export interface SettledRequest {
  account: number;
  key: string;
  model: string;
  at: number;
  cost: number;
  cached?: number;
  status?: string;
  requestId?: string;
}

/** Settles requests into the ledger of the database at `dbPath`, as the server does. */
export async function settleRequest(
  dbPath: string,
  ...rows: SettledRequest[]
): Promise<void> {
  const db = await openDatabase(`file:${dbPath}`);
  try {
    for (const row of rows) {
      await db.store.settleHold({
        holdId: "hold_none",
        accountId: row.account,
        keyId: row.key,
        requestId: row.requestId ?? "req_test",
        createdAt: row.at,
        model: row.model,
        entryPoint: "chat",
        channel: "echo",
        upstreamModel: row.model,
        attempts: 1,
        stream: false,
        status: row.status ?? "ok",
        reason: null,
        inputTokens: 100,
        outputTokens: 10,
        cachedTokens: row.cached ?? 0,
        cacheWriteTokens: 0,
        estimated: false,
        costMicros: row.cost,
        durationMs: 5,
      });
    }
  } finally {
    await db.close();
  }
}
