/** Checking a target, and measuring one phase against it with its server's CPU time. */
import { WHOLE_TEXT } from "./fake_answers.ts";
import { type LoadPhase, type LoadResult, type Percentiles, runLoad, TAIL_BYTES } from "./load.ts";
import { cpuMillis } from "./processes.ts";
import { type ClientRequest, endMarker, type Protocol, relayedChunks } from "./protocols.ts";
import type { PhaseResult } from "./results.ts";

/** Runs `phase` (on `load`) and charges the CPU time process `pid` used meanwhile to its requests. */
export async function measure(
  pid: number,
  phase: LoadPhase,
  load: (phase: LoadPhase) => Promise<LoadResult> = runLoad,
): Promise<PhaseResult> {
  const before = await cpuMillis(pid);
  const result = await load(phase);
  const after = await cpuMillis(pid);
  const cpuMs = before === undefined || after === undefined ? undefined : after - before;
  const cpuMicrosPerRequest = cpuMs === undefined || result.requests === 0
    ? undefined
    : (cpuMs * 1000) / result.requests;
  return {
    ...result,
    concurrency: phase.concurrency,
    stream: phase.stream,
    cpuMs,
    cpuMicrosPerRequest,
  };
}

/** The middle of `values` (the upper one of an even count). */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1]!;
}

/**
 * Slices of one phase against one target as one result: the median slice's rate and
 * percentiles (a slice the host disturbed moves no figure), the sums of requests, errors,
 * time and CPU, and each slice's rate and CPU a request in the order taken (for ratios
 * taken round by round).
 */
export function combineSlices(slices: PhaseResult[]): PhaseResult {
  const sum = (of: (slice: PhaseResult) => number) =>
    slices.reduce((total, slice) => total + of(slice), 0);
  const middle = (of: (slice: PhaseResult) => Percentiles) => ({
    p50: median(slices.map((slice) => of(slice).p50)),
    p99: median(slices.map((slice) => of(slice).p99)),
    mean: median(slices.map((slice) => of(slice).mean)),
  });
  const requests = sum((slice) => slice.requests);
  const cpuMs = slices.every((slice) => slice.cpuMs !== undefined)
    ? sum((slice) => slice.cpuMs!)
    : undefined;
  return {
    ...slices[0]!,
    requests,
    errors: sum((slice) => slice.errors),
    firstError: slices.find((slice) => slice.firstError)?.firstError,
    seconds: sum((slice) => slice.seconds),
    requestsPerSecond: median(slices.map((slice) => slice.requestsPerSecond)),
    sliceRates: slices.map((slice) => slice.requestsPerSecond),
    sliceCpuMicros: slices.every((slice) => slice.cpuMicrosPerRequest !== undefined)
      ? slices.map((slice) => slice.cpuMicrosPerRequest!)
      : undefined,
    latency: middle((slice) => slice.latency),
    ttfb: slices.every((slice) => slice.ttfb) ? middle((slice) => slice.ttfb!) : undefined,
    cpuMs,
    cpuMicrosPerRequest: cpuMs === undefined || requests === 0
      ? undefined
      : (cpuMs * 1000) / requests,
  };
}

/** Slices a phase's time is cut into unless given, taken in turn across what it compares. */
export const SLICES = 3;

/**
 * Each of `subjects` measured in `rounds` slices of `seconds / rounds`, taken in turn
 * across them, so that drift and bursts of the (shared, noisy) machine hit all alike; each
 * result is its slices combined (combineSlices). `slice` loads its subject for a moment
 * unmeasured before it measures: a subject measured right after another process had the
 * machine would otherwise pay for the switch.
 */
export async function interleaved<T>(
  subjects: readonly T[],
  seconds: number,
  slice: (subject: T, round: number, seconds: number) => Promise<PhaseResult>,
  rounds = SLICES,
): Promise<PhaseResult[]> {
  const slices: PhaseResult[][] = subjects.map(() => []);
  for (let round = 1; round <= rounds; round++) {
    for (const [index, subject] of subjects.entries()) {
      slices[index]!.push(await slice(subject, round, seconds / rounds));
    }
  }
  return slices.map(combineSlices);
}

/** A ratio, and how precisely its rounds know it where it was taken round by round. */
export interface PairedRatio {
  /** The median of the rounds' ratios (or a ratio of two totals, without rounds). */
  value: number;
  /** Twice the standard error of the rounds' ratios: about a 95% interval. */
  spread?: number;
}

/**
 * `of` over `to`, round by round (`of[i] / to[i]`, two slices taken one right after the
 * other): a drift of the machine slower than a round cancels out of each ratio, where
 * the ratio of two medians would carry it whole.
 */
export function pairedRatio(
  of: readonly number[],
  to: readonly number[],
): Required<PairedRatio> {
  if (of.length !== to.length || of.length === 0) {
    throw new Error(`Paired ratio of ${of.length} and ${to.length} rounds.`);
  }
  const ratios = of.map((value, round) => value / to[round]!);
  return { value: median(ratios), spread: 2 * standardError(ratios) };
}

/** The standard error of the mean of `values` (NaN for fewer than two). */
export function standardError(values: readonly number[]): number {
  if (values.length < 2) return Number.NaN;
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) /
    (values.length - 1);
  return Math.sqrt(variance / values.length);
}

/** Milliseconds of unmeasured load a slice starts with: half the warm-up, at most 500. */
export function sliceWarmupMs(warmupSeconds: number): number {
  return Math.min(500, (warmupSeconds * 1000) / 2);
}

/**
 * Sends one whole and one stream request and fails with the reason unless both answer
 * 200, the whole one with the fake's text and the stream with all `chunks` chunks and
 * its end marker within the tail the load generator looks at.
 */
export async function checkAnswers(
  name: string,
  protocol: Protocol,
  requestFor: (stream: boolean) => ClientRequest,
  chunks: number,
): Promise<void> {
  for (const stream of [false, true]) {
    const { url, headers, body } = requestFor(stream);
    const response = await fetch(url, { method: "POST", headers, body });
    const text = await response.text();
    if (response.status !== 200) {
      throw new Error(`${name} answered ${response.status}: ${text.slice(0, 500)}`);
    }
    if (!stream && !text.includes(WHOLE_TEXT)) {
      throw new Error(`${name} answered without the upstream's text: ${text.slice(0, 500)}`);
    }
    if (!stream) continue;
    const relayed = relayedChunks(protocol, text);
    const marker = endMarker(protocol);
    const markerProblem = text.slice(-TAIL_BYTES).includes(marker)
      ? ""
      : text.includes(marker)
      ? `, ${marker} not within the last ${TAIL_BYTES} bytes`
      : `, no ${marker}`;
    if (relayed !== chunks || markerProblem) {
      throw new Error(
        `${name} relayed ${relayed} of ${chunks} chunks${markerProblem}: ${text.slice(-300)}`,
      );
    }
  }
}

/**
 * How many interleaved passes `seconds` of `sliceSeconds` slices make: an even number, at
 * least four, so that each side runs first as often as last.
 */
export function passCount(seconds: number, sliceSeconds: number): number {
  return Math.max(4, 2 * Math.round(seconds / sliceSeconds / 2));
}

/** The sides in pass `pass`'s order: forward, then backward (A B C, then C B A). */
export function passOrder<T>(sides: readonly T[], pass: number): readonly T[] {
  return pass % 2 === 0 ? sides : [...sides].reverse();
}
