/**
 * The cost phases: what a feature costs tollgate, as 1 - throughput with it / without it,
 * on non-stream chat at concurrency C and on streams at concurrency S. The targets that
 * differ in one feature (the request log and metrics, never-refusing group limits) are
 * measured in many short interleaved slices (A B C, then C B A, and again), so drift of
 * a shared machine during the phase falls on all of them alike, and the spread of the
 * passes' costs says how precise the cost is.
 */
import { pairedRatio, passCount, passOrder } from "./measure.ts";
import { measureTarget, type Target, type TargetSettings, warmUp } from "./targets.ts";
import { errors, opt, percent, table } from "./table.ts";
import type { Ratio } from "./results.ts";

/** The names of the cost targets: tollgate priced, and it with one thing changed. */
export const COST_TARGETS = {
  priced: "tollgate priced",
  quiet: "tollgate priced, no log/metrics",
  limited: "tollgate priced, limits",
} as const;

/** The stated targets: the most each feature may cost, as a fraction of throughput. */
const COSTS = [
  { name: "observability", with: COST_TARGETS.priced, without: COST_TARGETS.quiet, most: 0.03 },
  { name: "limits", with: COST_TARGETS.limited, without: COST_TARGETS.priced, most: 0.05 },
] as const;

/**
 * The observability pair: `priced` with the request log and metrics on, and the same
 * process with both off, switched by writing its config (a reload) before each slice.
 * One process for both, so that the difference is the feature's, not two processes'
 * (heaps, JIT, database files) that differ by several percent on their own.
 */
export function observabilityTargets(priced: Target): [Target, Target] {
  const ready = priced.server.ready;
  const switchTo = (observed: boolean) => async () => {
    const text = String(observed ? ready.observedConfig : ready.quietConfig);
    await Deno.writeTextFile(String(ready.configPath), text);
    Deno.kill(priced.server.pid, "SIGHUP");
    await metricsServed(priced.url, observed);
  };
  return [
    { ...priced, prepare: switchTo(true) },
    { ...priced, name: COST_TARGETS.quiet, prepare: switchTo(false) },
  ];
}

/** Waits until the reload is in force: /metrics answers 200 when on and 404 when off. */
async function metricsServed(url: string, on: boolean): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const response = await fetch(`${url}/metrics`);
    await response.body?.cancel();
    if ((response.status === 200) === on) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`tollgate did not switch its metrics ${on ? "on" : "off"} within 5 s.`);
}

/** One target's slices of one kind of load, summed. */
export interface CostSide {
  target: string;
  requests: number;
  errors: number;
  firstError?: string;
  seconds: number;
  requestsPerSecond: number;
  /** Server CPU per request (per chunk for streams), µs; undefined without /proc. */
  cpuMicros?: number;
  /** Requests per second of each pass, in pass order (for the spread of a cost). */
  passRates: number[];
}

/** One kind of load against every cost target. */
export interface CostRun {
  kind: "chat" | "streams";
  concurrency: number;
  sides: CostSide[];
}

/** A feature's cost on one kind of load. */
export interface CostResult {
  name: string;
  kind: CostRun["kind"];
  /** 1 - requests/s with the feature / without it: the figure of the target. */
  throughputCost: number;
  /**
   * Twice the standard error of the cost, from the passes' costs taken one by one: the
   * cost is known to about +/- this much (a 95% interval, roughly).
   */
  spread: number;
  /** 1 - server CPU per request without / with: the same cost in CPU. */
  cpuCost?: number;
  most: number;
}

/** Seconds of one slice: short, so that the passes are many and a drift falls on all. */
const SLICE_SECONDS = 1;

/**
 * Warms up every target, then for chat and for streams runs passes of one slice per
 * target (`SLICE_SECONDS`, `duration` s per target in all), forward and backward in turn.
 */
export async function runCosts(
  targets: Target[],
  settings: TargetSettings,
  progress: (line: string) => void,
): Promise<CostRun[]> {
  for (const target of targets) await warmUp(target, settings, progress);
  const kinds = [
    { kind: "chat", stream: false, concurrency: settings.concurrency },
    { kind: "streams", stream: true, concurrency: settings.streamConcurrency },
  ] as const;
  const passes = passCount(settings.duration, SLICE_SECONDS);
  const runs: CostRun[] = [];
  for (const { kind, stream, concurrency } of kinds) {
    const sums = targets.map((target) => ({
      target,
      requests: 0,
      errors: 0,
      firstError: undefined as string | undefined,
      seconds: 0,
      cpuMs: 0 as number | undefined,
      passRates: [] as number[],
    }));
    for (let pass = 0; pass < passes; pass++) {
      progress(`${kind} c${concurrency}, pass ${pass + 1}/${passes}`);
      for (const sum of passOrder(sums, pass)) {
        await sum.target.prepare?.();
        const result = await measureTarget(
          sum.target,
          stream,
          concurrency,
          settings.duration / passes,
          settings.load,
        );
        sum.requests += result.requests;
        sum.errors += result.errors;
        sum.firstError ??= result.firstError;
        sum.seconds += result.seconds;
        sum.passRates.push(result.requests / result.seconds);
        sum.cpuMs = sum.cpuMs === undefined || result.cpuMs === undefined
          ? undefined
          : sum.cpuMs + result.cpuMs;
      }
    }
    runs.push({
      kind,
      concurrency,
      sides: sums.map((sum) => {
        if (sum.errors > 0) {
          progress(`${sum.target.name}: ${sum.errors} errors, first: ${sum.firstError}`);
        }
        const units = sum.requests * (stream ? settings.chunks : 1);
        return {
          target: sum.target.name,
          requests: sum.requests,
          errors: sum.errors,
          firstError: sum.firstError,
          seconds: sum.seconds,
          requestsPerSecond: sum.requests / sum.seconds,
          cpuMicros: sum.cpuMs === undefined || units === 0
            ? undefined
            : (sum.cpuMs * 1000) / units,
          passRates: sum.passRates,
        };
      }),
    });
  }
  return runs;
}

/** Each feature's cost on each kind of load, where both of its targets ran. */
export function costResults(runs: CostRun[]): CostResult[] {
  return runs.flatMap((run) =>
    COSTS.flatMap((cost) => {
      const on = run.sides.find((side) => side.target === cost.with);
      const off = run.sides.find((side) => side.target === cost.without);
      if (!on || !off) return [];
      const cpuCost = on.cpuMicros && off.cpuMicros ? 1 - off.cpuMicros / on.cpuMicros : undefined;
      return [{
        name: cost.name,
        kind: run.kind,
        throughputCost: 1 - on.requestsPerSecond / off.requestsPerSecond,
        // The spread of the passes' costs (1 - ratio) is that of their ratios.
        spread: pairedRatio(on.passRates, off.passRates).spread,
        cpuCost,
        most: cost.most,
      }];
    })
  );
}

/** The cost targets as ratios of the report. */
export function costRatios(costs: CostResult[]): Ratio[] {
  return costs.map((cost) => ({
    name: `${cost.name} cost 1 - with / without (${cost.kind})`,
    value: cost.throughputCost,
    target: `< ${cost.most}`,
    met: cost.throughputCost < cost.most,
  }));
}

/** The cost phases' tables: each target's throughput and CPU, then each feature's cost. */
export function costTables(runs: CostRun[], costs: CostResult[], chunks: number): string[] {
  const [chat, streams] = [
    runs.find((r) => r.kind === "chat"),
    runs.find((r) => r.kind === "streams"),
  ];
  if (!chat || !streams) return [];
  return [
    `Costs: interleaved slices, chat at concurrency ${chat.concurrency}, ${chunks}-chunk streams ` +
    `at concurrency ${streams.concurrency}`,
    table(
      ["target", "chat req/s", "server CPU µs/req", "streams/s", "server CPU µs/chunk"],
      chat.sides.map((side, index) => {
        const stream = streams.sides[index]!;
        return [
          side.target,
          side.requestsPerSecond.toFixed(0) + errors(side),
          opt(side.cpuMicros),
          stream.requestsPerSecond.toFixed(0) + errors(stream),
          opt(stream.cpuMicros, 1),
        ];
      }),
    ),
    "",
    table(
      ["cost", "load", "1 - req/s with / without", "+/-", "1 - CPU without / with", "target"],
      costs.map((cost) => [
        cost.name,
        cost.kind,
        percent(cost.throughputCost),
        percent(cost.spread),
        cost.cpuCost === undefined ? "n/a" : percent(cost.cpuCost),
        `< ${percent(cost.most)}`,
      ]),
    ),
    "(observability: request log on stdout and metrics on vs both off in the same process; limits: rpm, tpm and " +
    "concurrency set too high to refuse vs none)",
    "",
  ];
}
