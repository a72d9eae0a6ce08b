/**
 * A real tollgate for tests: the server of `startServer` on 127.0.0.1 port 0, with
 * the real migrations on a SQLite file in a temp dir (or on the PostgreSQL database a
 * test names), and helpers to make accounts and keys and to read the ledger.
 */
import { issueKey } from "../src/auth/issue_key.ts";
import { usdToMicros } from "../src/billing/money.ts";
import { createAccount, findAccountByName } from "../src/db/accounts.ts";
import { type Db, openDatabase } from "../src/db/database.ts";
import type { Account, LedgerRow } from "../src/db/schema.ts";
import { type Logger, silentLogger } from "../src/log.ts";
import { type RunningServer, startServer } from "../src/server.ts";
import type { AlarmClock } from "../src/clock/alarm_clock.ts";

/** Options of a key made for a test; a fresh account is made unless `account` names one. */
export interface TestKeyOptions {
  account?: string;
  balanceUsd?: string;
  unlimited?: boolean;
  group?: string;
  quotaTokens?: number;
  models?: string[];
  allowIps?: string[];
  expiresAt?: number;
  /** The key's label. */
  name?: string;
}

/** A running gateway under test. */
export interface TestGateway {
  /** The server root, e.g. http://127.0.0.1:1234 (Anthropic SDK base URL). */
  url: string;
  /** `url` + "/v1" (OpenAI SDK base URL). */
  baseUrl: string;
  dir: string;
  configPath: string;
  db: Db;
  server: RunningServer;
  /** The request log's lines, as the gateway wrote them. */
  requestLog: string[];
  /** Makes a key (and its account); returns its id and secret. */
  createKey(options?: TestKeyOptions): Promise<{ id: string; secret: string; account: string }>;
  account(name: string): Promise<Account>;
  ledger(): Promise<LedgerRow[]>;
  /** Rewrites the config file (the caller decides whether to reload). */
  writeConfig(toml: string): Promise<void>;
  /** POSTs JSON with a key, returning the raw Response. */
  post(
    path: string,
    key: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
  close(): Promise<void>;
}

/** The database part of a test config. */
export function databaseSection(dir: string): string {
  return `[database]\nurl = "file:${dir}/tollgate.db"\n`;
}

/**
 * Starts a gateway whose config is `toml` plus a database: a SQLite file in a fresh temp
 * dir, or `databaseUrl` (an empty PostgreSQL database, see postgres.ts); `now` is its clock
 * of record and `clock` (fakes/manual_clock.ts) the one of its deadlines.
 */
export async function startGateway(
  toml: string,
  options: {
    log?: Logger;
    databaseUrl?: string;
    now?: () => number;
    clock?: AlarmClock;
    /** The alerts worker's clock (the runtime's timers unless given). */
    alertsClock?: AlarmClock;
  } = {},
): Promise<TestGateway> {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_test_" });
  const configPath = `${dir}/config.toml`;
  const databaseUrl = options.databaseUrl ?? `file:${dir}/tollgate.db`;
  const withDatabase = (text: string) => `[database]\nurl = "${databaseUrl}"\n\n${text}`;
  await Deno.writeTextFile(configPath, withDatabase(toml));
  const requestLog: string[] = [];
  const server = await startServer({
    configPath,
    log: options.log ?? silentLogger,
    port: 0,
    now: options.now,
    clock: options.clock,
    alertsClock: options.alertsClock,
    requestLog: { line: (text) => void requestLog.push(text), flush: () => Promise.resolve() },
  });
  const db = await openDatabase(databaseUrl);
  let accounts = 0;
  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    dir,
    configPath,
    db,
    server,
    requestLog,
    async createKey(options = {}) {
      const name = options.account ?? `account_${++accounts}`;
      const account = await findAccountByName(db.kysely, name) ?? await createAccount(db.kysely, {
        name,
        balanceMicros: usdToMicros(options.balanceUsd ?? "0"),
        unlimited: options.unlimited ?? options.balanceUsd === undefined,
        createdAt: Date.now(),
      });
      const { key, secret } = await issueKey(db.kysely, {
        accountId: account!.id,
        group: options.group ?? "default",
        quotaTokens: options.quotaTokens,
        models: options.models,
        allowIps: options.allowIps,
        expiresAt: options.expiresAt,
        name: options.name,
        createdAt: Date.now(),
      });
      return { id: key.id, secret, account: name };
    },
    async account(name) {
      // Balances follow settlements, which are written after the answers: wait for those.
      await server.settled();
      return (await findAccountByName(db.kysely, name))!;
    },
    async ledger() {
      // Answers go out before their ledger rows are written: wait for those in flight.
      await server.settled();
      return await db.kysely.selectFrom("ledger").selectAll().orderBy("id").execute();
    },
    async writeConfig(text) {
      await Deno.writeTextFile(configPath, withDatabase(text));
    },
    post(path, key, body, headers = {}) {
      return fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    },
    async close() {
      await server.shutdown();
      await db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The usual test config: a default group and the given channels. */
export function configWith(channels: string, extra = ""): string {
  return `[groups.default]\nmodels = ["*"]\n\n${extra}\n${channels}`;
}

/** What `channel` writes into a channel section. */
export interface ChannelOptions {
  name: string;
  protocol: string;
  baseUrl?: string;
  models: string[];
  keys?: string[];
  priority?: number;
  weight?: number;
  extra?: string;
}

/** A channel section for `configWith`. */
export function channel(options: ChannelOptions): string {
  const lines = [
    "[[channels]]",
    `name = "${options.name}"`,
    `protocol = "${options.protocol}"`,
    options.baseUrl ? `base_url = "${options.baseUrl}"` : "",
    `models = ${JSON.stringify(options.models)}`,
    `keys = ${JSON.stringify(options.keys ?? [])}`,
    `priority = ${options.priority ?? 0}`,
    `weight = ${options.weight ?? 1}`,
    options.extra ?? "",
  ];
  return lines.filter(Boolean).join("\n") + "\n";
}
