/**
 * What issue 42's records cost (bench/README.md has the figures):
 *
 * - `flood`: admitted requests (chat, priced, whole answers, wrk at c32) beside a flood of
 *   requests with a bad key (wrk at c8 from the same address), in interleaved slices with
 *   and without the flood, on this checkout and on `--base DIR` (a checkout without refusal
 *   records, e.g. a worktree of integ): admitted req/s and p99, the flood's rate, and the
 *   refusal rows the flood left (one address: 60 a minute and one counting record).
 * - `tracing`: the same admitted requests with OTEL_DENO off and on (exporting to an OTLP
 *   sink here that takes every export and answers 200), two tollgate processes taking
 *   turns: req/s, p99 and server CPU a request.
 *
 *   deno run -A bench/records.ts [--only flood,tracing] [--base DIR] [--duration S]
 *     [--warmup S] [--concurrency N] [--flood N]
 */
import { parseArgs } from "node:util";
import { openDatabase } from "../src/db/database.ts";
import { combineSlices, measure, pairedRatio, passCount, passOrder } from "./measure.ts";
import { type ChildServer, startChild, tollgateRuntimeFlags } from "./processes.ts";
import { clientRequest } from "./protocols.ts";
import type { PhaseResult } from "./results.ts";
import { ms, opt, percent, table } from "./table.ts";
import { checkWrk, runWrk } from "./wrk.ts";

const { values } = parseArgs({
  options: {
    only: { type: "string", default: "flood,tracing" },
    base: { type: "string" },
    duration: { type: "string", default: "12" },
    warmup: { type: "string", default: "2" },
    concurrency: { type: "string", default: "32" },
    flood: { type: "string", default: "8" },
  },
});
const ONLY = new Set(values.only.split(","));
const DURATION = Number(values.duration);
const WARMUP = Number(values.warmup);
const CONCURRENCY = Number(values.concurrency);
const FLOOD = Number(values.flood);
const SLICE_SECONDS = 2;

const progress = (line: string) => console.error(`bench: ${line}`);

/** The admitted requests' phase against one tollgate. */
function admitted(tollgate: ChildServer, durationMs: number) {
  const request = clientRequest("chat", {
    baseUrl: tollgate.ready.url,
    model: "bench-priced",
    key: String(tollgate.ready.pricedKey),
  }, false);
  return { ...request, stream: false, concurrency: CONCURRENCY, durationMs };
}

/** The flood: the same request with a key that does not exist. */
function flood(tollgate: ChildServer, durationMs: number) {
  const request = clientRequest("chat", {
    baseUrl: tollgate.ready.url,
    model: "bench-priced",
    key: "sk-not-a-key-0123456789abcdefghijklmnop",
  }, false);
  return { ...request, stream: false, concurrency: FLOOD, durationMs };
}

/** One side of a comparison: a tollgate and whether the flood runs beside its slices. */
interface Side {
  name: string;
  tollgate: ChildServer;
  flooded: boolean;
}

interface SideResult extends PhaseResult {
  name: string;
  floodRate?: number;
}

/** Each side's admitted requests in interleaved slices (the flood beside them when asked). */
async function measureSides(sides: Side[]): Promise<SideResult[]> {
  for (const side of sides) {
    progress(`warming up ${side.name}`);
    await runWrk(admitted(side.tollgate, WARMUP * 1000));
  }
  const passes = passCount(DURATION, SLICE_SECONDS);
  const slices: PhaseResult[][] = sides.map(() => []);
  const floods: number[][] = sides.map(() => []);
  for (let pass = 0; pass < passes; pass++) {
    progress(`pass ${pass + 1}/${passes}`);
    for (const index of passOrder(sides.map((_, i) => i), pass)) {
      const side = sides[index]!;
      const phase = admitted(side.tollgate, SLICE_SECONDS * 1000);
      const running = side.flooded ? runWrk(flood(side.tollgate, SLICE_SECONDS * 1000)) : null;
      slices[index]!.push(await measure(side.tollgate.pid, phase, runWrk));
      const flooded = await running;
      if (flooded) floods[index]!.push((flooded.requests + flooded.errors) / flooded.seconds);
    }
  }
  return slices.map((taken, index) => ({
    ...combineSlices(taken),
    name: sides[index]!.name,
    floodRate: floods[index]!.length
      ? floods[index]!.reduce((a, b) => a + b, 0) / floods[index]!.length
      : undefined,
  }));
}

/** The results' table, each against the first. */
function print(title: string, results: SideResult[]): void {
  const [first] = results;
  console.log(title);
  console.log(table(
    ["side", "admitted req/s", "p50 ms", "p99 ms", "CPU µs/req", "vs first", "+/-", "flood/s"],
    results.map((result) => {
      const ratio = pairedRatio(result.sliceRates!, first!.sliceRates!);
      return [
        result.name,
        result.requestsPerSecond.toFixed(0) + (result.errors ? ` (${result.errors} errors)` : ""),
        ms(result.latency.p50),
        ms(result.latency.p99),
        opt(result.cpuMicrosPerRequest),
        result === first ? "" : percent(ratio.value - 1),
        result === first ? "" : percent(ratio.spread),
        result.floodRate === undefined ? "" : result.floodRate.toFixed(0),
      ];
    }),
  ));
}

/** Starts the bench's tollgate of checkout `root` on `upstream`, with `env`. */
function tollgateOf(upstream: string, root?: URL, env: Record<string, string> = {}) {
  return startChild(
    "tollgate",
    "tollgate_server.ts",
    [upstream],
    tollgateRuntimeFlags(undefined, root),
    root,
    env,
  );
}

/** The refusal rows a tollgate's database holds: rows, and refusals they count. */
async function refusalRows(tollgate: ChildServer): Promise<{ rows: number; counted: number }> {
  const config = await Deno.readTextFile(String(tollgate.ready.configPath));
  const url = /url = "([^"]+)"/.exec(config)![1]!;
  const db = await openDatabase(url);
  try {
    const rows = await db.kysely.selectFrom("refusals").select(["count"]).execute();
    return { rows: rows.length, counted: rows.reduce((sum, row) => sum + Number(row.count), 0) };
  } finally {
    await db.close();
  }
}

async function benchFlood(upstream: string): Promise<void> {
  const started: ChildServer[] = [];
  try {
    const after = await tollgateOf(upstream);
    started.push(after);
    const sides: Side[] = [
      { name: "records, no flood", tollgate: after, flooded: false },
      { name: "records, flood", tollgate: after, flooded: true },
    ];
    if (values.base) {
      const root = new URL(`file://${Deno.realPathSync(values.base)}/`);
      const before = await tollgateOf(upstream, root);
      started.push(before);
      sides.push(
        { name: "base, no flood", tollgate: before, flooded: false },
        { name: "base, flood", tollgate: before, flooded: true },
      );
    }
    const results = await measureSides(sides);
    print(
      `Refusal records: chat, priced, whole answers, c${CONCURRENCY} admitted; a flood of bad ` +
        `keys at c${FLOOD} from the same address; ${SLICE_SECONDS} s slices, interleaved`,
      results,
    );
    // Read while it runs (its files go when it stops): the current minute's counting
    // record is still in memory then.
    const rows = await refusalRows(after);
    const flooded = results[1]!;
    console.log(
      `refusal rows written during the run (${(flooded.seconds / 60).toFixed(1)} min of ` +
        `flood, ~${Math.round((flooded.floodRate ?? 0) * flooded.seconds)} refusals): ` +
        `${rows.rows} rows counting ${rows.counted} refusals\n`,
    );
  } finally {
    for (const child of started) await child.stop();
  }
}

async function benchTracing(upstream: string): Promise<void> {
  const sink = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    await req.arrayBuffer();
    return new Response(new Uint8Array(), {
      headers: { "content-type": "application/x-protobuf" },
    });
  });
  const started: ChildServer[] = [];
  try {
    const off = await tollgateOf(upstream);
    started.push(off);
    const on = await tollgateOf(upstream, undefined, {
      OTEL_DENO: "true",
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.addr.port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
    });
    started.push(on);
    const results = await measureSides([
      { name: "OTEL_DENO off", tollgate: off, flooded: false },
      { name: "OTEL_DENO=true", tollgate: on, flooded: false },
    ]);
    print(
      `Tracing: chat, priced, whole answers, c${CONCURRENCY}, exporting over http/protobuf ` +
        `to a sink on 127.0.0.1; ${SLICE_SECONDS} s slices, interleaved`,
      results,
    );
  } finally {
    for (const child of started) await child.stop();
    await sink.shutdown();
  }
}

if (import.meta.main) {
  await checkWrk();
  const fake = await startChild("fake upstream", "fake_upstream.ts", []);
  try {
    if (ONLY.has("flood")) await benchFlood(fake.ready.url);
    if (ONLY.has("tracing")) await benchTracing(fake.ready.url);
  } finally {
    await fake.stop();
  }
}
