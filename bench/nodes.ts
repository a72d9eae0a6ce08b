/**
 * Priced chat requests per second at concurrency C, in one run: one `tollgate serve` on a
 * SQLite file, one on PostgreSQL, and three on one PostgreSQL with the load spread over
 * them (C/3 each). Every request takes and settles a real hold on one funded account,
 * against the bench's fake upstream. The PostgreSQL cluster is a throwaway one
 * (tests/postgres.ts) with fsync on. All of it shares this machine's cores, so three
 * nodes here measure contention on one account more than scale-out.
 *
 *   deno run -A bench/nodes.ts [--seconds S] [--concurrency C]
 */
import { parseArgs } from "node:util";
import { issueKey } from "../src/auth/issue_key.ts";
import { usdToMicros } from "../src/billing/money.ts";
import { createAccount } from "../src/db/accounts.ts";
import { openDatabase } from "../src/db/database.ts";
import { startPostgres } from "../tests/postgres.ts";
import { type ServerProcess, spawnServer } from "../tests/process.ts";
import { DEFAULT_CHUNKS, DEFAULT_SLOW_CHUNKS, DEFAULT_SLOW_DELAY_MS } from "./fake_upstream.ts";
import { runLoad } from "./load.ts";
import { machine, startChild } from "./processes.ts";
import { clientRequest } from "./protocols.ts";
import { benchConfig } from "./tollgate_server.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    concurrency: { type: "string", default: "32" },
  },
});
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);

/** Starts `nodes` gateways on `databaseUrl`, loads them at CONCURRENCY in all, stops them. */
async function measure(name: string, upstream: string, databaseUrl: string, nodes: number) {
  const dir = await Deno.makeTempDir({ prefix: "tollgate_bench_nodes_" });
  const configPath = `${dir}/config.toml`;
  const config = benchConfig({ dbPath: "", upstream, observability: true });
  await Deno.writeTextFile(
    configPath,
    config.replace('url = "file:"', `url = "${databaseUrl}"`)
      .replace("[server]\n", '[server]\nlisten = "127.0.0.1:0"\n'),
  );
  const db = await openDatabase(databaseUrl);
  const servers: ServerProcess[] = [];
  try {
    const migration = await db.migrate();
    if (migration.error) throw new Error(migration.error.message);
    const account = await createAccount(db.kysely, {
      name: "bench-funded",
      balanceMicros: usdToMicros("1000000"),
      unlimited: false,
    });
    const { secret } = await issueKey(db.kysely, {
      accountId: account!.id,
      group: "default",
      createdAt: 0,
    });
    servers.push(
      ...await Promise.all(Array.from({ length: nodes }, () => spawnServer(configPath))),
    );
    const load = (durationMs: number) =>
      Promise.all(servers.map((server) =>
        runLoad({
          ...clientRequest(
            "chat",
            { baseUrl: server.url, key: secret, model: "bench-priced" },
            false,
          ),
          stream: false,
          concurrency: Math.ceil(CONCURRENCY / nodes),
          durationMs,
        })
      ));
    await load(2_000);
    const results = await load(SECONDS * 1000);
    const requests = results.reduce((sum, result) => sum + result.requests, 0);
    const errors = results.reduce((sum, result) => sum + result.errors, 0);
    const seconds = Math.max(...results.map((result) => result.seconds));
    const p50 = Math.max(...results.map((result) => result.latency.p50));
    console.log(
      `${name.padEnd(30)} ${(requests / seconds).toFixed(0).padStart(7)} req/s` +
        `   p50 ${p50.toFixed(2)} ms   errors ${errors}` +
        (results[0]?.firstError ? ` (${results[0].firstError})` : ""),
    );
  } finally {
    for (const server of servers) {
      server.child.kill("SIGTERM");
      await server.child.status;
    }
    await db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const fake = await startChild("fake upstream", "fake_upstream.ts", [
  String(DEFAULT_CHUNKS),
  String(DEFAULT_SLOW_CHUNKS),
  String(DEFAULT_SLOW_DELAY_MS),
]);
const cluster = await startPostgres({ durable: true });
const dir = await Deno.makeTempDir({ prefix: "tollgate_bench_nodes_" });
try {
  const { cpu, cores } = await machine();
  console.log(`priced chat at concurrency ${CONCURRENCY}, ${SECONDS} s, ${cores} x ${cpu}`);
  await measure("1 node, SQLite file", fake.ready.url, `file:${dir}/bench.db`, 1);
  await measure("1 node, PostgreSQL", fake.ready.url, await cluster.createDatabase(), 1);
  await measure("3 nodes, one PostgreSQL", fake.ready.url, await cluster.createDatabase(), 3);
} finally {
  await cluster.close();
  await fake.stop();
  await Deno.remove(dir, { recursive: true });
}
