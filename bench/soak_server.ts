/**
 * tollgate as the soak runs it: `startServer` on a temp-dir config and SQLite file, the
 * request log on stdout as in production (the parent drains it), one chat channel to the
 * soak upstream, a priced model and a funded account's key.
 *
 * Run as a child of bench/soak.ts: `deno run -A --unstable-no-legacy-abort
 * bench/soak_server.ts UPSTREAM_URL`; prints `{"url","key","configPath","dbPath"}`.
 */
import { issueKey } from "../src/auth/issue_key.ts";
import { usdToMicros } from "../src/billing/money.ts";
import { createAccount } from "../src/db/accounts.ts";
import { openDatabase } from "../src/db/database.ts";
import { silentLogger } from "../src/log.ts";
import { startServer } from "../src/server.ts";
import { announce, stdinClosed } from "./child.ts";

/** The soak's config; `variant` changes a comment, so a rewrite is a real reload. */
export function soakConfig(dbPath: string, upstream: string, variant: number): string {
  return `# reload ${variant}
[database]
url = "file:${dbPath}"

[groups.default]
models = ["*"]

[models."soak"]
max_output_tokens = 256
input_price = 0.15
output_price = 0.60

[[channels]]
name = "soak-upstream"
protocol = "chat"
base_url = "${upstream}/v1"
models = ["soak"]
keys = ["sk-soak"]
`;
}

if (import.meta.main) {
  const upstream = Deno.args[0];
  if (!upstream) throw new Error("Usage: soak_server.ts UPSTREAM_URL");
  const dir = await Deno.makeTempDir({ prefix: "tollgate_soak_" });
  const configPath = `${dir}/config.toml`;
  const dbPath = `${dir}/tollgate.db`;
  await Deno.writeTextFile(configPath, soakConfig(dbPath, upstream, 0));
  const server = await startServer({ configPath, log: silentLogger, port: 0 });
  const db = await openDatabase(`file:${dbPath}`);
  const account = await createAccount(db.kysely, {
    name: "soak",
    balanceMicros: usdToMicros("1000000"),
    unlimited: false,
    createdAt: Date.now(),
  });
  const { secret } = await issueKey(db.kysely, {
    accountId: account!.id,
    group: "default",
    createdAt: Date.now(),
  });
  await db.close();
  announce({ url: server.url, key: secret, configPath, dbPath });
  await stdinClosed();
  await server.shutdown();
  await Deno.remove(dir, { recursive: true });
  Deno.exit(0);
}
