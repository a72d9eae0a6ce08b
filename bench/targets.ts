/**
 * The targets phase: direct to the fake, the bare proxy and tollgate (unpriced and
 * priced), each checked and warmed up, then measured phase by phase: non-stream chat at
 * concurrency 1 and C, streams at concurrency 1 and S.
 */
import { runLoad } from "./load.ts";
import { checkAnswers, interleaved, measure, SLICES, sliceWarmupMs } from "./measure.ts";
import type { ChildServer } from "./processes.ts";
import { type ClientRequest, clientRequest } from "./protocols.ts";
import type { LoadGenerator } from "./settings.ts";
import { runWrk } from "./wrk.ts";
import type { PhaseResult, TargetResults } from "./results.ts";

/** One thing under load: where to send, with which key and model, and whose CPU to read. */
export interface Target {
  name: string;
  url: string;
  key?: string;
  model: string;
  /** The process serving it: the fake for direct, else the proxy. */
  server: ChildServer;
  /** Puts the server in this target's state (a config) before each warm-up and slice. */
  prepare?: () => Promise<void>;
}

/** What the targets' phases need from the bench's settings. */
export interface TargetSettings {
  duration: number;
  warmup: number;
  concurrency: number;
  streamConcurrency: number;
  chunks: number;
  /** What loads the non-stream phases. */
  load: LoadGenerator;
}

/** The chat request a client sends to `target`. */
export function requestOf(target: Target, stream: boolean): ClientRequest {
  return clientRequest(
    "chat",
    { baseUrl: target.url, key: target.key, model: target.model },
    stream,
  );
}

/** Checks `target`'s answers, then loads it for the warm-up time: half chat, half streams. */
export async function warmUp(
  target: Target,
  settings: TargetSettings,
  progress: (line: string) => void,
): Promise<void> {
  await target.prepare?.();
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

/**
 * Runs one phase against one target, with the serving process's CPU time around it:
 * whole answers on `load`, streams on the fetch loop (which checks their end markers).
 */
export function measureTarget(
  target: Target,
  stream: boolean,
  concurrency: number,
  seconds: number,
  load: LoadGenerator,
): Promise<PhaseResult> {
  return measure(
    target.server.pid,
    { ...requestOf(target, stream), stream, concurrency, durationMs: seconds * 1000 },
    stream || load === "fetch" ? runLoad : runWrk,
  );
}

/** Seconds of one slice of the targets' phases: short, so that the rounds are many. */
export const TARGET_SLICE_SECONDS = 1;

/**
 * The rounds a targets' phase of `duration` seconds is cut into: one slice of about
 * TARGET_SLICE_SECONDS per target and round, at least SLICES rounds. Ratios are taken
 * round by round (report.ts), and slices seconds apart on this kind of shared machine
 * differ by up to two to one, which a round's pair of neighbouring slices mostly does not.
 */
export function targetRounds(duration: number): number {
  return Math.max(SLICES, Math.round(duration / TARGET_SLICE_SECONDS));
}

/**
 * How many times the phase duration the loaded non-stream phase runs: its ratios are the
 * issue's throughput targets, and on this host one round's ratio moves by +/-0.15 (two
 * runs of eight 2-second rounds and one of 24 short ones, bench/README.md), so it takes
 * three times the rounds of the other phases to know the median to about +/-0.08.
 */
export const LOADED_CHAT_TIME = 3;

/**
 * The four targets' phases: each target checked and warmed up, then phase by phase, the
 * phase's time cut into rounds of one slice per target (`interleaved`, `targetRounds`):
 * each figure is the median slice's, each ratio the median round's.
 */
export async function runTargets(
  targets: Target[],
  settings: TargetSettings,
  progress: (line: string) => void,
): Promise<TargetResults[]> {
  for (const target of targets) await warmUp(target, settings, progress);

  const { duration } = settings;
  const phases = [
    { key: "chat_c1", stream: false, concurrency: 1, seconds: duration },
    {
      key: "chat_cN",
      stream: false,
      concurrency: settings.concurrency,
      seconds: duration * LOADED_CHAT_TIME,
    },
    { key: "stream_c1", stream: true, concurrency: 1, seconds: duration },
    { key: "stream_cN", stream: true, concurrency: settings.streamConcurrency, seconds: duration },
  ] as const;
  const results: TargetResults[] = targets.map((target) => ({ target: target.name, phases: {} }));
  const order = measuringOrder(targets);
  for (const phase of phases) {
    const rounds = targetRounds(phase.seconds);
    const measured = await interleaved(
      order.map((index) => targets[index]!),
      phase.seconds,
      async (target, round, seconds) => {
        progress(`${phase.key} ${target.name} (${round}/${rounds})`);
        await runLoad({
          ...requestOf(target, phase.stream),
          stream: phase.stream,
          concurrency: phase.concurrency,
          durationMs: sliceWarmupMs(settings.warmup),
        });
        return await measureTarget(
          target,
          phase.stream,
          phase.concurrency,
          seconds,
          settings.load,
        );
      },
      rounds,
    );
    const combined: PhaseResult[] = [];
    for (const [at, index] of order.entries()) combined[index] = measured[at]!;
    for (const [index, target] of targets.entries()) {
      const result = combined[index]!;
      if (result.errors > 0) {
        progress(`${target.name}: ${result.errors} errors, first: ${result.firstError}`);
      }
      results[index]!.phases[phase.key] = result;
    }
  }
  return results;
}

/**
 * The order the targets' slices are taken in (indexes into `targets`, the first kept
 * first): none right after another target of the same process, round after round. A
 * process measured again at once can read faster than one whose slice follows another
 * process's: tollgate priced measured right after tollgate unpriced read cheaper than it
 * in most runs, though it does more, and dearer when measured first (bench/README.md). So
 * every target follows another process's slice, as the bare proxy's always did.
 */
export function measuringOrder(targets: readonly Target[]): number[] {
  const apart = (order: number[]) =>
    order.every((index, at) =>
      targets[index]!.server !== targets[order[(at + 1) % order.length]!]!.server
    );
  const orders = (rest: number[]): number[][] =>
    rest.length <= 1
      ? [rest]
      : rest.flatMap((index) =>
        orders(rest.filter((other) => other !== index)).map((order) => [index, ...order])
      );
  const [first, ...rest] = targets.map((_, index) => index);
  if (first === undefined) return [];
  return orders(rest).map((order) => [first, ...order]).find(apart) ??
    targets.map((_, index) => index);
}
