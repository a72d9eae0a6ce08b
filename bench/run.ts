/**
 * tollgate's load and latency bench (`deno task bench`, see bench/README.md).
 *
 * Starts a fast fake upstream, a bare Hono + fetch pass-through proxy and tollgate, each
 * in its own process, then drives the same load at each target from this process:
 * non-stream chat at concurrency 1 and C, and N-chunk streams at concurrency 1 and S.
 * Then streams at concurrency S through tollgate in each direction (client protocol ->
 * channel protocol). Prints tables and the ratios the performance targets are stated in
 * (`--json`: JSON).
 */
import { parseArgs } from "node:util";
import { type DirectionResult, runDirections } from "./directions.ts";
import { runLoad } from "./load.ts";
import { checkAnswers, measure } from "./measure.ts";
import { type ChildServer, machine, startChild } from "./processes.ts";
import { clientRequest } from "./protocols.ts";
import {
  directionRatios,
  type PhaseResult,
  printReport,
  type Ratio,
  ratios,
  type TargetResults,
} from "./report.ts";

/** The bench's two parts: the four targets' phases and tollgate's streams by direction. */
const PHASE_GROUPS = ["targets", "directions"] as const;
type PhaseGroup = typeof PHASE_GROUPS[number];

/** The bench's settings, from flags or `BENCH_*` environment variables. */
export interface Settings {
  /** Seconds each phase runs per target. */
  duration: number;
  /** Seconds of warm-up load per target before any measurement. */
  warmup: number;
  concurrency: number;
  streamConcurrency: number;
  chunks: number;
  /** Which parts run. */
  phases: PhaseGroup[];
  json: boolean;
}

const USAGE = `Usage: deno task bench [--duration S] [--warmup S] [--concurrency N]
                        [--stream-concurrency N] [--chunks N]
                        [--phases targets,directions] [--json]
  --duration S            seconds per phase and target (BENCH_DURATION, default 5)
  --warmup S              seconds of warm-up per target (BENCH_WARMUP, default 2)
  --concurrency N         non-stream concurrency of the loaded phase (BENCH_CONCURRENCY, 32)
  --stream-concurrency N  stream concurrency of the loaded phase (BENCH_STREAM_CONCURRENCY, 8)
  --chunks N              content chunks per stream (BENCH_CHUNKS, default 64)
  --phases LIST           parts to run, comma-separated: targets (direct, bare proxy,
                          tollgate; chat), directions (tollgate streams per protocol
                          pair) (BENCH_PHASES, default both)
  --json                  print one JSON object instead of the table`;

function settingsFrom(args: string[]): Settings {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: "string" },
      warmup: { type: "string" },
      concurrency: { type: "string" },
      "stream-concurrency": { type: "string" },
      chunks: { type: "string" },
      phases: { type: "string" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    Deno.exit(0);
  }
  const number = (flag: string | undefined, env: string, fallback: number, integer = false) => {
    const text = flag ?? Deno.env.get(env);
    const value = text === undefined ? fallback : Number(text);
    if (!(value > 0) || (integer && !Number.isInteger(value))) {
      const kind = integer ? "a positive integer" : "a positive number";
      throw new Error(`Invalid ${env} (or its flag): "${text}" is not ${kind}.`);
    }
    return value;
  };
  return {
    duration: number(values.duration, "BENCH_DURATION", 5),
    warmup: number(values.warmup, "BENCH_WARMUP", 2),
    concurrency: number(values.concurrency, "BENCH_CONCURRENCY", 32, true),
    streamConcurrency: number(values["stream-concurrency"], "BENCH_STREAM_CONCURRENCY", 8, true),
    chunks: number(values.chunks, "BENCH_CHUNKS", 64, true),
    phases: phaseGroups(values.phases ?? Deno.env.get("BENCH_PHASES")),
    json: values.json || Deno.env.get("BENCH_JSON") === "1",
  };
}

function phaseGroups(text: string | undefined): PhaseGroup[] {
  if (text === undefined) return [...PHASE_GROUPS];
  const names = text.split(",").map((name) => name.trim()).filter(Boolean);
  const unknown = names.find((name) => !(PHASE_GROUPS as readonly string[]).includes(name));
  if (unknown !== undefined || names.length === 0) {
    throw new Error(
      `Invalid BENCH_PHASES (or --phases): "${text}" is not a list of ${PHASE_GROUPS.join(", ")}.`,
    );
  }
  return PHASE_GROUPS.filter((group) => names.includes(group));
}

/** One thing under load: where to send, with which key and model, and whose CPU to read. */
interface Target {
  name: string;
  url: string;
  key?: string;
  model: string;
  /** The process serving it: the fake for direct, else the proxy. */
  server: ChildServer;
}

function requestOf(target: Target, stream: boolean) {
  return clientRequest(
    "chat",
    { baseUrl: target.url, key: target.key, model: target.model },
    stream,
  );
}

/** Runs one phase against one target, with the serving process's CPU time around it. */
function measureTarget(
  target: Target,
  stream: boolean,
  concurrency: number,
  seconds: number,
): Promise<PhaseResult> {
  return measure(target.server.pid, {
    ...requestOf(target, stream),
    stream,
    concurrency,
    durationMs: seconds * 1000,
  });
}

/**
 * The four targets' phases: each target checked and warmed up, then phase by phase, all
 * targets in turn, so slow drift of the machine hits all alike.
 */
async function runTargets(
  targets: Target[],
  settings: Settings,
  progress: (line: string) => void,
): Promise<TargetResults[]> {
  for (const target of targets) {
    await checkAnswers(target.name, "chat", (stream) => requestOf(target, stream), settings.chunks);
    progress(`warming up ${target.name}`);
    const half = (settings.warmup * 1000) / 2;
    await runLoad({
      ...requestOf(target, false),
      stream: false,
      concurrency: settings.concurrency,
      durationMs: half,
    });
    await runLoad({
      ...requestOf(target, true),
      stream: true,
      concurrency: settings.streamConcurrency,
      durationMs: half,
    });
  }

  const phases = [
    { key: "chat_c1", stream: false, concurrency: 1 },
    { key: "chat_cN", stream: false, concurrency: settings.concurrency },
    { key: "stream_c1", stream: true, concurrency: 1 },
    { key: "stream_cN", stream: true, concurrency: settings.streamConcurrency },
  ] as const;
  const results: TargetResults[] = targets.map((target) => ({ target: target.name, phases: {} }));
  for (const phase of phases) {
    for (const [index, target] of targets.entries()) {
      progress(`${phase.key} ${target.name}`);
      const result = await measureTarget(
        target,
        phase.stream,
        phase.concurrency,
        settings.duration,
      );
      if (result.errors > 0) {
        progress(`${target.name}: ${result.errors} errors, first: ${result.firstError}`);
      }
      results[index]!.phases[phase.key] = result;
    }
  }
  return results;
}

async function main(): Promise<void> {
  const settings = settingsFrom(Deno.args);
  const progress = (line: string) => console.error(`bench: ${line}`);
  const withTargets = settings.phases.includes("targets");
  const children: ChildServer[] = [];
  try {
    progress(`starting the fake upstream, ${withTargets ? "the bare proxy " : ""}and tollgate`);
    const fake = await startChild("fake upstream", "fake_upstream.ts", [String(settings.chunks)]);
    children.push(fake);
    const [tollgate, proxy] = await Promise.all([
      startChild("tollgate", "tollgate_server.ts", [fake.ready.url], [
        "--unstable-no-legacy-abort",
      ]),
      withTargets ? startChild("bare proxy", "bare_proxy.ts", [fake.ready.url]) : undefined,
    ]);
    children.push(tollgate, ...(proxy ? [proxy] : []));
    const unpricedKey = String(tollgate.ready.unpricedKey);

    let results: TargetResults[] = [];
    if (proxy) {
      results = await runTargets(
        [
          { name: "direct", url: fake.ready.url, model: "bench", server: fake },
          { name: "bare proxy", url: proxy.ready.url, model: "bench", server: proxy },
          {
            name: "tollgate unpriced",
            url: tollgate.ready.url,
            key: unpricedKey,
            model: "bench-unpriced",
            server: tollgate,
          },
          {
            name: "tollgate priced",
            url: tollgate.ready.url,
            key: String(tollgate.ready.pricedKey),
            model: "bench-priced",
            server: tollgate,
          },
        ],
        settings,
        progress,
      );
    }
    const directions: DirectionResult[] = settings.phases.includes("directions")
      ? await runDirections(tollgate, unpricedKey, settings, progress)
      : [];

    const summary: Ratio[] = [
      ...(results.length > 0 ? ratios(results) : []),
      ...directionRatios(directions, settings.chunks),
    ];
    const report = {
      date: new Date().toISOString(),
      machine: await machine(),
      deno: Deno.version.deno,
      settings,
      results,
      directions,
      ratios: summary,
    };
    if (settings.json) console.log(JSON.stringify(report, null, 2));
    else printReport(report);
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
