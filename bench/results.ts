/**
 * What the bench's phases measure, as the report reads it: a leaf the phases and the report
 * both import, so that neither imports the other.
 */
import type { LoadResult } from "./load.ts";

/** The phases every target runs; `cN` is the loaded concurrency of the settings. */
export type PhaseKey = "chat_c1" | "chat_cN" | "stream_c1" | "stream_cN";

/** One phase's measurements plus the serving process's CPU time during it. */
export type PhaseResult = LoadResult & {
  concurrency: number;
  stream: boolean;
  /** CPU time (ms) the serving process used during the phase; undefined without /proc. */
  cpuMs?: number;
  /** `cpuMs` per completed request, in µs. */
  cpuMicrosPerRequest?: number;
  /** Requests per second of each slice, in the order taken (a phase measured in slices). */
  sliceRates?: number[];
  /** Server CPU µs a request of each slice, in the order taken (where /proc has it). */
  sliceCpuMicros?: number[];
};

/** Every phase of one target. */
export interface TargetResults {
  target: string;
  phases: Partial<Record<PhaseKey, PhaseResult>>;
}

/** A figure the performance targets are stated in. */
export interface Ratio {
  name: string;
  value: number;
  /** About a 95% interval of `value`, where it is taken round by round. */
  spread?: number;
  target: string;
  met: boolean;
}
