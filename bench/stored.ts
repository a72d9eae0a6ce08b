/**
 * What stored responses add to a request (issue 37: storing costs < 5% of c32 throughput,
 * a 50-turn chain resolves in < 5 ms). Against a real tollgate process on a SQLite file
 * and the fake upstream, a responses client on a chat channel (the most common set-up),
 * at concurrency C: `POST /v1/responses` with `store: false`, with `store` left to its
 * default (kept), and chained by `previous_response_id` to a stored response (resolved,
 * then kept too), in interleaved slices, forward and backward in turn, so that drift of
 * the shared machine falls on all three alike; the costs are taken slice pair by slice pair.
 * Then a chain of N stored turns is built through the store and resolving its next turn
 * is timed (stored_chain.ts), on a SQLite file and with `--postgres` on a throwaway
 * PostgreSQL cluster (tests/postgres.ts, fsync on).
 *
 *   deno run -A bench/stored.ts [--duration S] [--warmup S] [--concurrency N]
 *     [--load wrk|fetch] [--turns N] [--iterations N] [--postgres] [--only http,chain]
 */
import { parseArgs } from "node:util";
import { startPostgres } from "../tests/postgres.ts";
import { runLoad } from "./load.ts";
import {
  combineSlices,
  measure,
  pairedRatio,
  passCount,
  passOrder,
  sliceWarmupMs,
} from "./measure.ts";
import { type ChildServer, startChild, tollgateRuntimeFlags } from "./processes.ts";
import { clientRequest } from "./protocols.ts";
import { type ChainResult, measureChain } from "./stored_chain.ts";
import { errors, ms, opt, percent, table } from "./table.ts";
import { checkWrk, runWrk } from "./wrk.ts";
import type { PhaseResult } from "./results.ts";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    concurrency: { type: "string", default: "32" },
    load: { type: "string", default: "wrk" },
    turns: { type: "string", default: "50" },
    iterations: { type: "string", default: "2000" },
    "question-bytes": { type: "string", default: "300" },
    "answer-bytes": { type: "string", default: "1500" },
    postgres: { type: "boolean", default: false },
    only: { type: "string", default: "http,chain" },
  },
});
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const CONCURRENCY = Number(values.concurrency);
const ONLY = new Set(values.only.split(","));
/** Seconds of one slice: wrk runs whole seconds. */
const SLICE_SECONDS = 1;
/** Most a feature may cost, as a fraction of throughput; most ms a chain may take (p99). */
const MOST_COST = 0.05;
const MOST_CHAIN_MS = 5;

/** One kind of request: its name and what its body adds to the client's own. */
interface Mode {
  name: string;
  body: Record<string, unknown>;
}

const progress = (line: string) => console.error(`bench: ${line}`);

/** Sends `body` once; fails unless 200. Returns the answer. */
async function post(url: string, headers: Record<string, string>, body: unknown) {
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as { id: string };
}

/**
 * The three modes, the chained one to a response stored here; checks on the way that a
 * kept response is found at once (GET) and a chain to it is answered.
 */
async function modes(tollgate: ChildServer): Promise<{
  modes: Mode[];
  request: ReturnType<typeof clientRequest>;
}> {
  const request = clientRequest("responses", {
    baseUrl: tollgate.ready.url,
    model: "bench-priced",
    key: String(tollgate.ready.pricedKey),
  }, false);
  const base = JSON.parse(request.body) as Record<string, unknown>;
  const stored = await post(request.url, request.headers, base);
  const found = await fetch(`${tollgate.ready.url}/v1/responses/${stored.id}`, {
    headers: request.headers,
  });
  await found.body?.cancel();
  if (found.status !== 200) throw new Error(`A kept response was not found: ${found.status}`);
  const chained = { ...base, previous_response_id: stored.id };
  await post(request.url, request.headers, chained);
  return {
    request,
    modes: [
      { name: "store: false", body: { ...base, store: false } },
      { name: "store (default)", body: base },
      { name: "previous_response_id", body: chained },
    ],
  };
}

/** A mode's slices combined. */
type ModeResult = PhaseResult & { name: string };

/** The throughput of each mode, measured in interleaved slices. */
async function measureModes(tollgate: ChildServer): Promise<ModeResult[]> {
  const { request, modes: all } = await modes(tollgate);
  const phase = (mode: Mode, durationMs: number) => ({
    ...request,
    body: JSON.stringify(mode.body),
    stream: false,
    concurrency: CONCURRENCY,
    durationMs,
  });
  const load = values.load === "fetch" ? runLoad : runWrk;
  for (const mode of all) {
    progress(`warming up ${mode.name}`);
    await runLoad(phase(mode, WARMUP * 1000));
  }
  const passes = passCount(DURATION, SLICE_SECONDS);
  const slices: PhaseResult[][] = all.map(() => []);
  for (let pass = 0; pass < passes; pass++) {
    progress(`c${CONCURRENCY}, pass ${pass + 1}/${passes}`);
    for (const index of passOrder(all.map((_, index) => index), pass)) {
      await runLoad(phase(all[index]!, sliceWarmupMs(WARMUP)));
      slices[index]!.push(
        await measure(tollgate.pid, phase(all[index]!, SLICE_SECONDS * 1000), load),
      );
    }
  }
  return slices.map((taken, index) => ({ ...combineSlices(taken), name: all[index]!.name }));
}

/** The modes' table and their costs against `store: false`. */
function printModes(results: ModeResult[]): void {
  const [off] = results;
  console.log(
    `Stored responses: POST /v1/responses (responses client, chat channel, priced), ` +
      `c${CONCURRENCY}, ${off!.sliceRates!.length} interleaved ${SLICE_SECONDS} s slices each`,
  );
  console.log(table(
    ["request", "req/s", "p50 ms", "p99 ms", "server CPU µs/req", "cost vs store: false", "+/-"],
    results.map((result) => {
      const ratio = pairedRatio(result.sliceRates!, off!.sliceRates!);
      return [
        result.name,
        result.requestsPerSecond.toFixed(0) + errors(result),
        ms(result.latency.p50),
        ms(result.latency.p99),
        opt(result.cpuMicrosPerRequest),
        result === off ? "" : percent(1 - ratio.value),
        result === off ? "" : percent(ratio.spread),
      ];
    }),
  ));
  console.log(
    `(cost: 1 - the median of the slice pairs' req/s ratios; +/-: twice its standard error; ` +
      `target < ${percent(MOST_COST)})\n`,
  );
}

function printChains(chains: ChainResult[]): void {
  console.log(`Resolving the next turn of a stored chain (src/stored/resolve.ts resolveTurn)`);
  console.log(table(
    [
      "database",
      "turns",
      "items sent",
      "bytes a turn, first/last tenth",
      "keep ms, first/last tenth",
      "runs",
      "p50 ms",
      "p99 ms",
      "mean ms",
    ],
    chains.map((chain) => [
      chain.database,
      String(chain.turns),
      String(chain.items),
      `${chain.bytesPerTurn.first.toFixed(0)} / ${chain.bytesPerTurn.last.toFixed(0)}`,
      `${ms(chain.keepMs.first)} / ${ms(chain.keepMs.last)}`,
      String(chain.iterations),
      ms(chain.latency.p50),
      ms(chain.latency.p99),
      ms(chain.latency.mean),
    ]),
  ));
  console.log(`(target: < ${MOST_CHAIN_MS} ms for 50 turns)`);
}

async function measureHttp(): Promise<void> {
  if (values.load !== "fetch") await checkWrk();
  progress("starting the fake upstream and tollgate");
  const fake = await startChild("fake upstream", "fake_upstream.ts", []);
  try {
    const tollgate = await startChild(
      "tollgate",
      "tollgate_server.ts",
      [fake.ready.url],
      tollgateRuntimeFlags(),
    );
    try {
      printModes(await measureModes(tollgate));
    } finally {
      await tollgate.stop();
    }
  } finally {
    await fake.stop();
  }
}

async function measureChains(): Promise<void> {
  const shape = {
    turns: Number(values.turns),
    questionBytes: Number(values["question-bytes"]),
    answerBytes: Number(values["answer-bytes"]),
    iterations: Number(values.iterations),
  };
  const chains: ChainResult[] = [];
  const dir = await Deno.makeTempDir({ prefix: "tollgate_bench_stored_" });
  try {
    progress(`resolving a ${shape.turns}-turn chain on a SQLite file`);
    chains.push(await measureChain("SQLite file", `file:${dir}/stored.db`, shape));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  if (values.postgres) {
    progress(`resolving a ${shape.turns}-turn chain on PostgreSQL`);
    const cluster = await startPostgres({ durable: true });
    try {
      chains.push(await measureChain("PostgreSQL", await cluster.createDatabase(), shape));
    } finally {
      await cluster.close();
    }
  }
  printChains(chains);
}

if (import.meta.main) {
  try {
    if (ONLY.has("http")) await measureHttp();
    if (ONLY.has("chain")) await measureChains();
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
