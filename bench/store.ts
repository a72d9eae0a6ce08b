/**
 * Holds and settlements per second through the store, without HTTP: hold+settle pairs on
 * one account at concurrency 1 and C, on a SQLite file (group commit, prepared
 * statements) and on PostgreSQL (one stored-function call each) with one process's pool
 * and with three pools standing for three nodes. The PostgreSQL cluster is a throwaway
 * one (tests/postgres.ts) with fsync on, as a production server runs. With `--keys K` and
 * `--models M` the pairs go round K keys (of K accounts) and M models, so that a batch of
 * settlements touches as many usage rollup rows as a busy gateway's; `--only` picks stores.
 *
 *   deno run -A bench/store.ts [--pairs N] [--concurrency C] [--no-fsync] [--keys K]
 *                              [--models M] [--only sqlite,postgres,nodes]
 */
import { parseArgs } from "node:util";
import { type Db, openDatabase } from "../src/db/database.ts";
import type { SettlementFailure } from "../src/db/store.ts";
import { benchHold, benchSettlement, fundedTarget, type HoldTarget } from "./store_rows.ts";
import { startPostgres } from "../tests/postgres.ts";

const { values } = parseArgs({
  options: {
    pairs: { type: "string", default: "4000" },
    concurrency: { type: "string", default: "32" },
    "no-fsync": { type: "boolean", default: false },
    keys: { type: "string", default: "1" },
    models: { type: "string", default: "1" },
    only: { type: "string", default: "sqlite,postgres,nodes" },
  },
});
const KEYS = Number(values.keys);
const MODELS = Array.from({ length: Number(values.models) }, (_, i) => `m${i}`);
const ONLY = new Set(values.only.split(","));
const PAIRS = Number(values.pairs);
const CONCURRENCY = Number(values.concurrency);

/**
 * Runs `pairs` hold+settle pairs over `handles` and `targets` (round robin, and round the
 * models) with `concurrency` workers.
 */
async function pairsPerSecond(
  handles: Db[],
  targets: HoldTarget[],
  pairs: number,
  concurrency: number,
): Promise<number> {
  let next = 0;
  // As in the server, a settlement is not awaited before the next request's hold (on SQLite
  // it commits with the other settlements a few ms later); all are committed before the
  // clock stops.
  const settlements = new Set<Promise<readonly SettlementFailure[]>>();
  const worker = async (index: number) => {
    const db = handles[index % handles.length]!;
    while (next < pairs) {
      const n = next++;
      const hold = benchHold(targets[n % targets.length]!, MODELS[n % MODELS.length]);
      const result = await db.store.takeHold(hold);
      if (!result.ok) throw new Error(`hold refused: ${JSON.stringify(result)}`);
      settlements.add(db.store.settleHold(benchSettlement(hold)));
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
  const failures = (await Promise.all(settlements)).flat();
  if (failures.length > 0) throw new Error(`settlement failed: ${String(failures[0]!.error)}`);
  return pairs / ((performance.now() - started) / 1000);
}

/** Opens `count` handles on `url`, makes a funded account and a key, and measures. */
async function measure(name: string, url: string, count: number): Promise<void> {
  const handles = await Promise.all(Array.from({ length: count }, () => openDatabase(url)));
  try {
    const targets: HoldTarget[] = [];
    for (let i = 0; i < KEYS; i++) targets.push(await fundedTarget(handles[0]!));
    await pairsPerSecond(handles, targets, 200, CONCURRENCY); // warm-up: connections, plans
    const one = await pairsPerSecond(handles, targets, Math.min(PAIRS, 1_000), 1);
    const many = await pairsPerSecond(handles, targets, PAIRS, CONCURRENCY);
    console.log(
      `${name.padEnd(34)} c1 ${one.toFixed(0).padStart(6)} pairs/s` +
        `   c${CONCURRENCY} ${many.toFixed(0).padStart(6)} pairs/s`,
    );
  } finally {
    await Promise.all(handles.map((handle) => handle.close()));
  }
}

const dir = await Deno.makeTempDir({ prefix: "tollgate_bench_store_" });
const cluster = await startPostgres({ durable: !values["no-fsync"] });
try {
  if (ONLY.has("sqlite")) await measure("SQLite file, one process", `file:${dir}/bench.db`, 1);
  if (ONLY.has("postgres")) {
    await measure("PostgreSQL, one process", await cluster.createDatabase(), 1);
  }
  if (ONLY.has("nodes")) {
    await measure("PostgreSQL, three processes' pools", await cluster.createDatabase(), 3);
  }
} finally {
  await cluster.close();
  await Deno.remove(dir, { recursive: true });
}
