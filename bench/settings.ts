/** The bench's settings: flags, their `BENCH_*` environment variables and defaults. */
import { parseArgs } from "node:util";
import { DEFAULT_SLOW_CHUNKS, DEFAULT_SLOW_DELAY_MS } from "./fake_upstream.ts";

/**
 * The bench's parts, in the order they run: the four targets' phases, tollgate's streams
 * by direction, what the request log and metrics cost, what never-refusing limits cost,
 * many concurrent slow streams with memory, and idle streams held open.
 */
export const PHASE_GROUPS = [
  "targets",
  "directions",
  "observability",
  "limits",
  "memory",
  "idle",
] as const;
/** One part of the bench, as `--phases` names it. */
export type PhaseGroup = typeof PHASE_GROUPS[number];

/** What loads the non-stream phases: wrk (wrk.ts), or the fetch loop (load.ts) as before. */
export const LOAD_GENERATORS = ["wrk", "fetch"] as const;
/** One load generator, as `--load` names it. */
export type LoadGenerator = typeof LOAD_GENERATORS[number];

/** The bench's settings, from flags or `BENCH_*` environment variables. */
export interface Settings {
  /** Seconds each phase runs per target. */
  duration: number;
  /** Seconds of warm-up load per target before any measurement. */
  warmup: number;
  concurrency: number;
  streamConcurrency: number;
  chunks: number;
  /** Concurrent slow streams of the memory phase. */
  memoryStreams: number;
  /** Content chunks of a slow stream and the fake's time between two of its events. */
  slowChunks: number;
  slowDelayMs: number;
  /** Idle streams held open at once, and for how long. */
  idleStreams: number;
  idleSeconds: number;
  /** Which parts run. */
  phases: PhaseGroup[];
  /** What loads the non-stream phases (streams always run on the fetch loop). */
  load: LoadGenerator;
  /**
   * V8 flags of every tollgate the bench starts (comma-separated, as `--v8-flags` takes)
   * in place of deno.json's; "none" for V8's defaults; undefined: deno.json's.
   */
  tollgateV8Flags?: string;
  json: boolean;
}

/** `--help`. */
/** Concurrent slow streams of the memory phase unless set. */
export const DEFAULT_MEMORY_STREAMS = 200;

export const USAGE = `Usage: deno task bench [--duration S] [--warmup S] [--concurrency N]
                        [--stream-concurrency N] [--chunks N] [--memory-streams N]
                        [--idle-streams N] [--idle-seconds S] [--phases LIST]
                        [--load wrk|fetch] [--tollgate-v8-flags LIST] [--json]
  --duration S            seconds per phase and target (BENCH_DURATION, default 5; the
                          non-stream phase at --concurrency runs three times as long)
  --warmup S              seconds of warm-up per target (BENCH_WARMUP, default 2)
  --concurrency N         non-stream concurrency of the loaded phase (BENCH_CONCURRENCY, 32)
  --stream-concurrency N  stream concurrency of the loaded phase (BENCH_STREAM_CONCURRENCY, 8)
  --chunks N              content chunks per stream (BENCH_CHUNKS, default 64)
  --memory-streams N      concurrent slow streams of the memory phase (BENCH_MEMORY_STREAMS,
                          default ${DEFAULT_MEMORY_STREAMS}; ${DEFAULT_SLOW_CHUNKS} chunks, one per ${DEFAULT_SLOW_DELAY_MS} ms)
  --idle-streams N        idle streams held open at once (BENCH_IDLE_STREAMS, default 2000;
                          tollgate needs 2 open files per stream: 10000 needs ulimit -n > 25000)
  --idle-seconds S        how long the idle streams are held (BENCH_IDLE_SECONDS, default 10)
  --phases LIST           parts to run, comma-separated (BENCH_PHASES, default all):
                          targets (direct, bare proxy, tollgate; chat), directions
                          (tollgate streams per protocol pair), observability (request log
                          and metrics on vs off), limits (never-refusing group limits vs
                          none), memory (concurrent slow streams, RSS), idle (idle streams)
  --load wrk|fetch        what loads the non-stream phases (BENCH_LOAD, default wrk: Debian's
                          wrk package, the issue's own load generator; fetch: the bench's
                          fetch loop, as until 2026-11-27; streams always use the fetch loop)
  --tollgate-v8-flags LIST  V8 flags of the tollgates started in place of those of
                          \`deno task start\` (BENCH_TOLLGATE_V8_FLAGS; "none" for V8's defaults;
                          e.g. --max-semi-space-size=8: bench/README.md)
  --json                  print one JSON object instead of the tables`;

/** Reads the settings from `args` and the environment; throws on an invalid value. */
export function settingsFrom(args: string[]): Settings {
  const { values } = parseArgs({
    args,
    options: {
      duration: { type: "string" },
      warmup: { type: "string" },
      concurrency: { type: "string" },
      "stream-concurrency": { type: "string" },
      chunks: { type: "string" },
      "memory-streams": { type: "string" },
      "idle-streams": { type: "string" },
      "idle-seconds": { type: "string" },
      phases: { type: "string" },
      load: { type: "string" },
      "tollgate-v8-flags": { type: "string" },
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
    memoryStreams: number(
      values["memory-streams"],
      "BENCH_MEMORY_STREAMS",
      DEFAULT_MEMORY_STREAMS,
      true,
    ),
    slowChunks: DEFAULT_SLOW_CHUNKS,
    slowDelayMs: DEFAULT_SLOW_DELAY_MS,
    idleStreams: number(values["idle-streams"], "BENCH_IDLE_STREAMS", 2000, true),
    idleSeconds: number(values["idle-seconds"], "BENCH_IDLE_SECONDS", 10),
    phases: phaseGroups(values.phases ?? Deno.env.get("BENCH_PHASES")),
    load: loadGenerator(values.load ?? Deno.env.get("BENCH_LOAD")),
    tollgateV8Flags: values["tollgate-v8-flags"] ?? Deno.env.get("BENCH_TOLLGATE_V8_FLAGS"),
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

/** The load generator `--load` (or BENCH_LOAD) names; wrk unless given. */
function loadGenerator(text: string | undefined): LoadGenerator {
  if (text === undefined) return "wrk";
  const found = LOAD_GENERATORS.find((name) => name === text.trim());
  if (!found) {
    throw new Error(
      `Invalid BENCH_LOAD (or --load): "${text}" is not one of ${LOAD_GENERATORS.join(", ")}.`,
    );
  }
  return found;
}
