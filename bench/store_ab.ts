/**
 * The store's hold+settle pairs against the store of another checkout (`--base DIR`, e.g. a
 * `git archive` of the commit before a change), in one process, round after round, the two
 * sides taking turns, for a change smaller than this host's run-to-run noise. Besides pairs
 * per second it reports the CPU a pair costs, which other processes' load hardly moves:
 * this process's (SQLite runs in it) and, on PostgreSQL, the database server's processes'
 * too (read from /proc). Each side writes its own database with its own migrations.
 *
 *   deno run -A bench/store_ab.ts --base DIR [--rounds 6] [--pairs 3000] [--concurrency 32]
 *                                 [--keys 1] [--models 1] [--postgres]
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { startPostgres } from "../tests/postgres.ts";
import { median } from "./measure.ts";
import { benchHold, benchSettlement, type HoldTarget } from "./store_rows.ts";
import type { Db } from "../src/db/database.ts";

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    rounds: { type: "string", default: "6" },
    pairs: { type: "string", default: "3000" },
    concurrency: { type: "string", default: "32" },
    keys: { type: "string", default: "1" },
    models: { type: "string", default: "1" },
    postgres: { type: "boolean", default: false },
  },
});
if (!values.base) throw new Error("Usage: deno run -A bench/store_ab.ts --base DIR [...]");
const ROUNDS = Number(values.rounds);
const PAIRS = Number(values.pairs);
const CONCURRENCY = Number(values.concurrency);
const KEYS = Number(values.keys);
const MODELS = Array.from({ length: Number(values.models) }, (_, i) => `m${i}`);

/** One checkout's store: how to open a database and make an account and key on it. */
interface Side {
  name: string;
  db: Db;
  targets: HoldTarget[];
  rate: number[];
  cpuMicros: number[];
}

/** Opens `url` with the code of the checkout at `root`, migrated, with KEYS funded keys. */
async function openSide(name: string, root: URL, url: string): Promise<Side> {
  const load = (path: string) => import(new URL(path, root).href);
  const { openDatabase } = await load("src/db/database.ts");
  const { createAccount } = await load("src/db/accounts.ts");
  const { issueKey } = await load("src/auth/issue_key.ts");
  const db: Db = await openDatabase(url);
  const migration = await db.migrate();
  if (migration.error) throw new Error(`${name}: ${migration.error.message}`);
  // As `tollgate serve` starts (before 2026-12-07 a SQLite store took its hold journal here).
  await db.store.heartbeat({ id: `inst_${name}`, host: "bench", pid: Deno.pid, heartbeatAt: 0 });
  const targets: HoldTarget[] = [];
  for (let i = 0; i < KEYS; i++) {
    const account = await createAccount(db.kysely, {
      name: `bench_${i}`,
      balanceMicros: 1_000_000_000_000,
      unlimited: false,
    });
    const { key } = await issueKey(db.kysely, { accountId: account.id, group: "g", createdAt: 0 });
    targets.push({ accountId: account.id, keyId: key.id });
  }
  return { name, db, targets, rate: [], cpuMicros: [] };
}

/** CPU microseconds used so far by this process and the processes `serverCpu` reads. */
function cpuNow(serverCpu: () => number): number {
  const { user, system } = process.cpuUsage();
  return user + system + serverCpu();
}

/** Runs `pairs` hold+settle pairs on `side`; returns pairs/s and CPU µs a pair. */
async function burst(side: Side, pairs: number, serverCpu: () => number) {
  let next = 0;
  const settlements: Promise<unknown>[] = [];
  const worker = async () => {
    while (next < pairs) {
      const n = next++;
      const hold = benchHold(side.targets[n % side.targets.length]!, MODELS[n % MODELS.length]);
      const result = await side.db.store.takeHold(hold);
      if (!result.ok) throw new Error(`hold refused: ${JSON.stringify(result)}`);
      settlements.push(side.db.store.settleHold(benchSettlement(hold)));
    }
  };
  const cpu = cpuNow(serverCpu);
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  await Promise.all(settlements);
  const seconds = (performance.now() - started) / 1000;
  return { rate: pairs / seconds, cpuMicros: (cpuNow(serverCpu) - cpu) / pairs };
}

/**
 * The CPU µs used so far by the PostgreSQL server listening on `port`: its postmaster and
 * every process it started (backends, writers), from /proc.
 */
function postgresCpu(port: number): () => number {
  const ticks = 100; // USER_HZ on Linux
  const statOf = (pid: string) => {
    try {
      const text = Deno.readTextFileSync(`/proc/${pid}/stat`);
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      return { ppid: fields[1]!, cpu: Number(fields[11]) + Number(fields[12]) };
    } catch {
      return undefined;
    }
  };
  let postmaster: string | undefined;
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const command = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      if (command.some((part) => part.includes(`-p ${port}`) || part === String(port))) {
        if (command[0]?.endsWith("postgres")) postmaster = entry.name;
      }
    } catch {
      // Gone meanwhile.
    }
  }
  if (!postmaster) throw new Error(`No PostgreSQL server found on port ${port}`);
  return () => {
    let cpu = statOf(postmaster!)?.cpu ?? 0;
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const stat = statOf(entry.name);
      if (stat?.ppid === postmaster) cpu += stat.cpu;
    }
    return cpu * (1_000_000 / ticks);
  };
}

/** Runs the rounds on the two sides, taking turns, and prints their medians. */
async function compare(title: string, sides: [Side, Side], serverCpu: () => number) {
  for (const side of sides) await burst(side, 300, serverCpu); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? sides : [sides[1], sides[0]];
    for (const side of order) {
      const { rate, cpuMicros } = await burst(side, PAIRS, serverCpu);
      side.rate.push(rate);
      side.cpuMicros.push(cpuMicros);
    }
  }
  console.log(`${title}, ${KEYS} key(s) x ${MODELS.length} model(s), c${CONCURRENCY}:`);
  for (const side of sides) {
    console.log(
      `  ${side.name.padEnd(6)} ${median(side.rate).toFixed(0).padStart(6)} pairs/s  ` +
        `${median(side.cpuMicros).toFixed(1).padStart(7)} µs CPU a pair  ` +
        `(CPU per round: ${side.cpuMicros.map((v) => v.toFixed(1)).join(", ")})`,
    );
  }
  const [base, head] = sides;
  console.log(
    `  this/base: pairs/s ${(median(head.rate) / median(base.rate)).toFixed(3)}, ` +
      `CPU a pair ${(median(head.cpuMicros) / median(base.cpuMicros)).toFixed(3)}`,
  );
}

const baseRoot = new URL(`file://${Deno.realPathSync(values.base)}/`);
const thisRoot = new URL("../", import.meta.url);
const dir = await Deno.makeTempDir({ prefix: "tollgate_store_ab_" });
try {
  const sides: [Side, Side] = [
    await openSide("base", baseRoot, `file:${dir}/base.db`),
    await openSide("this", thisRoot, `file:${dir}/this.db`),
  ];
  try {
    await compare("SQLite file", sides, () => 0);
  } finally {
    for (const side of sides) await side.db.close();
  }
  if (values.postgres) {
    const cluster = await startPostgres({ durable: true });
    try {
      const baseUrl = await cluster.createDatabase();
      const pgSides: [Side, Side] = [
        await openSide("base", baseRoot, baseUrl),
        await openSide("this", thisRoot, await cluster.createDatabase()),
      ];
      try {
        await compare("PostgreSQL", pgSides, postgresCpu(Number(new URL(baseUrl).port)));
      } finally {
        for (const side of pgSides) await side.db.close();
      }
    } finally {
      await cluster.close();
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
