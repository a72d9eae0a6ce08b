/**
 * When each upstream attempt was sent and ended (`performance.now()`), kept beside its
 * record only while tracing is on (telemetry.ts): its span is made from them once the
 * request is over. Off, noting costs a call and a test.
 */
import type { AttemptRecord } from "../billing/attempt_record.ts";

/** An attempt's span times, monotonic milliseconds, and its answer's text when captured. */
export interface AttemptTimes {
  sentAt: number;
  endedAt?: number;
  output?: string;
}

let times: WeakMap<AttemptRecord, AttemptTimes> | undefined;
let capturing = false;

/**
 * Starts keeping attempts' times (tracing is on), and their answers' text when `capture`
 * (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT).
 */
export function keepAttemptTimes(capture = false): void {
  times ??= new WeakMap();
  capturing = capture;
}

/** Whether prompt and answer text go on spans. */
export function capturingContent(): boolean {
  return capturing;
}

/** The text `record`'s attempt delivered, kept when content is captured. */
export function attemptOutput(record: AttemptRecord, text: () => string): void {
  if (!capturing) return;
  const noted = times?.get(record);
  if (noted) noted.output = text();
}

/** `record`'s attempt was sent now. */
export function attemptSent(record: AttemptRecord): void {
  times?.set(record, { sentAt: performance.now() });
}

/** `record`'s attempt is over (failed, or its answer ended). */
export function attemptEnded(record: AttemptRecord): void {
  const noted = times?.get(record);
  if (noted && noted.endedAt === undefined) noted.endedAt = performance.now();
}

/** The times noted of `record`'s attempt, if any. */
export function attemptTimesOf(record: AttemptRecord): AttemptTimes | undefined {
  return times?.get(record);
}
