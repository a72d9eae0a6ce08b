/** The bench's arithmetic and its printed tables: derived figures, target ratios, layout. */
import { type CostResult, type CostRun, costTables } from "./costs.ts";
import { directionName, type DirectionResult } from "./directions.ts";
import { type IdleResult, idleTable } from "./idle_streams.ts";
import { type PairedRatio, pairedRatio } from "./measure.ts";
import { type MemoryResult, memoryTable } from "./memory.ts";
import type { Settings } from "./settings.ts";
import { errors, ms, opt, table } from "./table.ts";
import type { PhaseKey, PhaseResult, Ratio, TargetResults } from "./results.ts";

/** What the report prints (the `--json` object has the same fields). */
export interface Report {
  date: string;
  machine: { cpu: string; cores: number; os: string };
  deno: string;
  settings: Omit<Settings, "json">;
  /** The four targets' phases (empty when `--phases` left them out). */
  results: TargetResults[];
  /** tollgate's streams by direction (empty when `--phases` left them out). */
  directions: DirectionResult[];
  /** The observability and limits phases: interleaved throughput per target (or empty). */
  costRuns: CostRun[];
  costs: CostResult[];
  /** Concurrent slow streams with memory (empty when left out). */
  memory: MemoryResult[];
  /** Idle streams held open (absent when left out). */
  idle?: IdleResult;
  /** `[server] keepalive_ms` of the idle phase's tollgate. */
  idleKeepaliveMs: number;
  ratios: Ratio[];
}

function phase(results: TargetResults[], target: string, key: PhaseKey): PhaseResult {
  const found = results.find((r) => r.target === target)?.phases[key];
  if (!found) throw new Error(`No ${key} result for ${target}.`);
  return found;
}

/**
 * `of`'s requests per second over `to`'s in one phase: round by round when both were
 * measured in the same rounds of slices (pairedRatio), else their medians' ratio.
 */
export function throughputRatio(of: PhaseResult, to: PhaseResult): PairedRatio {
  return roundByRound(of.sliceRates, to.sliceRates) ??
    { value: of.requestsPerSecond / to.requestsPerSecond };
}

/** `of` over `to` round by round when both hold the same rounds (more than one). */
function roundByRound(of?: number[], to?: number[]): PairedRatio | undefined {
  return of && to && of.length === to.length && of.length > 1 ? pairedRatio(of, to) : undefined;
}

/** The ratios of the targets: throughput vs the bare proxy, added latency, accounting cost. */
export function ratios(results: TargetResults[]): Ratio[] {
  const rps = (of: string, to: string, key: PhaseKey) =>
    throughputRatio(phase(results, of, key), phase(results, to, key));
  const p50 = (target: string) => phase(results, target, "chat_c1").latency.p50;
  const added = (target: string) => p50(target) - p50("direct");
  const out: Ratio[] = [];
  for (const kind of ["unpriced", "priced"]) {
    const tollgate = `tollgate ${kind}`;
    for (const key of ["chat_cN", "stream_cN"] as const) {
      const ratio = rps(tollgate, "bare proxy", key);
      out.push({
        name: `throughput ${tollgate} / bare proxy (${key === "chat_cN" ? "chat" : "streams"})`,
        ...ratio,
        target: ">= 0.8",
        met: ratio.value >= 0.8,
      });
    }
    const value = added(tollgate) / added("bare proxy");
    out.push({
      name: `added p50 ${tollgate} / bare proxy (chat, concurrency 1)`,
      value,
      target: "<= 1.5",
      met: value <= 1.5,
    });
  }
  for (const key of ["chat_cN", "stream_cN"] as const) {
    const ratio = rps("tollgate priced", "tollgate unpriced", key);
    const value = 1 - ratio.value;
    out.push({
      name: `accounting cost 1 - priced / unpriced (${key === "chat_cN" ? "chat" : "streams"})`,
      value,
      spread: ratio.spread,
      target: "< 0.15",
      met: value < 0.15,
    });
  }
  return out;
}

/** The most a translated stream may cost per chunk, as a multiple of pass-through. */
export const TRANSLATION_CPU_TARGET = 1.5;

/**
 * A direction's server CPU per chunk over that of its client protocol's pass-through:
 * round by round where both were measured in the same rounds, else over all their slices.
 */
export function translationCpuRatio(
  directions: DirectionResult[],
  direction: DirectionResult,
  chunks: number,
): PairedRatio | undefined {
  const passthrough = directions.find((d) =>
    d.client === direction.client && d.upstream === direction.client
  );
  if (!passthrough) return undefined;
  const paired = roundByRound(
    direction.result.sliceCpuMicros,
    passthrough.result.sliceCpuMicros,
  );
  if (paired) return paired;
  const own = cpuMicrosPer(direction.result, chunks);
  const base = cpuMicrosPer(passthrough.result, chunks);
  return own === undefined || !base ? undefined : { value: own / base };
}

/** The translation target per translated direction: CPU per chunk vs pass-through. */
export function directionRatios(directions: DirectionResult[], chunks: number): Ratio[] {
  return directions.flatMap((direction) => {
    const ratio = direction.client === direction.upstream
      ? undefined
      : translationCpuRatio(directions, direction, chunks);
    if (ratio === undefined) return [];
    return [{
      name: `server CPU/chunk ${directionName(direction)} / ${direction.client} pass-through`,
      ...ratio,
      target: `<= ${TRANSLATION_CPU_TARGET}`,
      met: ratio.value <= TRANSLATION_CPU_TARGET,
    }];
  });
}

/** CPU microseconds of the serving process per request of a phase (per chunk with `chunks`). */
export function cpuMicrosPer(result: PhaseResult, chunks = 1): number | undefined {
  if (result.cpuMs === undefined || result.requests === 0) return undefined;
  return (result.cpuMs * 1000) / (result.requests * chunks);
}

/** Prints the report as readable tables on stdout. */
export function printReport(report: Report): void {
  const { settings } = report;
  const out: string[] = [
    `tollgate bench, ${report.date}`,
    `${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.os}, deno ${report.deno}`,
    `${settings.duration} s per phase, ${settings.warmup} s warm-up per target, ` +
    `${settings.chunks}-chunk streams; whole answers loaded by ` +
    `${settings.load === "wrk" ? "wrk" : "the fetch loop"}, streams by the fetch loop`,
    "",
  ];
  if (report.results.length > 0) out.push(...targetTables(report));
  if (report.directions.length > 0) out.push(...directionTable(report));
  out.push(...costTables(report.costRuns, report.costs, settings.chunks));
  out.push(...memoryTable(report.memory, settings));
  out.push(...idleTable(report.idle, report.idleKeepaliveMs));
  if (report.ratios.length > 0) {
    out.push("Targets");
    out.push(table(
      ["figure", "value", "+/-", "target", "status"],
      report.ratios.map((r) => [
        r.name,
        r.value.toFixed(2),
        r.spread === undefined ? "" : r.spread.toFixed(2),
        r.target,
        r.met ? "met" : "MISSED",
      ]),
    ));
    out.push(
      "(throughput, accounting cost and CPU a chunk by direction: the median of the rounds' " +
        "ratios, each round's slices taken one after the other; +/- twice their standard error)",
    );
  }
  console.log(out.join("\n"));
}

/** The non-stream and stream tables of the four targets. */
function targetTables({ settings, results }: Report): string[] {
  const direct = (key: PhaseKey) => phase(results, "direct", key);
  const out: string[] = [];
  for (
    const [key, title] of [["chat_c1", "concurrency 1"], [
      "chat_cN",
      "concurrency " + settings.concurrency,
    ]] as const
  ) {
    out.push(`Non-stream chat, ${title}`);
    out.push(table(
      ["target", "req/s", "p50 ms", "p99 ms", "added p50", "added p99", "server CPU µs/req"],
      results.map((r) => {
        const result = r.phases[key]!;
        const base = direct(key);
        return [
          r.target,
          result.requestsPerSecond.toFixed(0) + errors(result),
          ms(result.latency.p50),
          ms(result.latency.p99),
          r.target === "direct" ? "-" : ms(result.latency.p50 - base.latency.p50),
          r.target === "direct" ? "-" : ms(result.latency.p99 - base.latency.p99),
          opt(cpuMicrosPer(result)),
        ];
      }),
    ));
    out.push("");
  }
  out.push(`Streams of ${settings.chunks} chunks`);
  out.push(table(
    [
      "target",
      "TTFB p50 c1",
      "TTFB p99 c1",
      "stream p50 c1",
      `req/s c${settings.streamConcurrency}`,
      `TTFB p50 c${settings.streamConcurrency}`,
      "server CPU µs/chunk",
    ],
    results.map((r) => {
      const one = r.phases.stream_c1!;
      const loaded = r.phases.stream_cN!;
      return [
        r.target,
        ms(one.ttfb!.p50),
        ms(one.ttfb!.p99),
        ms(one.latency.p50),
        loaded.requestsPerSecond.toFixed(0) + errors(loaded) + errors(one),
        ms(loaded.ttfb!.p50),
        opt(cpuMicrosPer(loaded, settings.chunks), 1),
      ];
    }),
  ));
  out.push(
    "(times in ms; 'direct' server CPU is the fake upstream's own; CPU per chunk is taken " +
      `at concurrency ${settings.streamConcurrency})`,
    "",
  );
  return out;
}

/** tollgate's streams by direction, each translation against its client's pass-through. */
function directionTable({ settings, directions }: Report): string[] {
  const c = settings.streamConcurrency;
  return [
    `Streams by direction (client -> upstream), ${settings.chunks} chunks, concurrency ${c}`,
    table(
      ["direction", "streams/s", "TTFB p50 ms", "server CPU µs/chunk", "CPU vs pass-through"],
      directions.map((direction) => {
        const { result } = direction;
        const ratio = direction.client === direction.upstream
          ? "-"
          : opt(translationCpuRatio(directions, direction, settings.chunks)?.value, 2);
        return [
          direction.name,
          result.requestsPerSecond.toFixed(0) + errors(result),
          ms(result.ttfb!.p50),
          opt(cpuMicrosPer(result, settings.chunks), 1),
          ratio,
        ];
      }),
    ),
    `(tollgate only, unpriced models; the ratio is to the pass-through of the client's ` +
    `protocol, target <= ${TRANSLATION_CPU_TARGET})`,
    "",
  ];
}
