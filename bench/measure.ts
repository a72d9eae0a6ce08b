/** Checking a target, and measuring one phase against it with its server's CPU time. */
import { WHOLE_TEXT } from "./fake_answers.ts";
import { type LoadPhase, type Percentiles, runLoad, TAIL_BYTES } from "./load.ts";
import { cpuMillis } from "./processes.ts";
import { type ClientRequest, endMarker, type Protocol, relayedChunks } from "./protocols.ts";
import type { PhaseResult } from "./report.ts";

/** Runs `phase` and charges the CPU time process `pid` used meanwhile to its requests. */
export async function measure(pid: number, phase: LoadPhase): Promise<PhaseResult> {
  const before = await cpuMillis(pid);
  const result = await runLoad(phase);
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
 * time and CPU.
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
    latency: middle((slice) => slice.latency),
    ttfb: slices.every((slice) => slice.ttfb) ? middle((slice) => slice.ttfb!) : undefined,
    cpuMs,
    cpuMicrosPerRequest: cpuMs === undefined || requests === 0
      ? undefined
      : (cpuMs * 1000) / requests,
  };
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
