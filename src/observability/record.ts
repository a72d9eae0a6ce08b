/**
 * What one request did, filled in as it goes (auth, routing, relay, settlement) and
 * reported once when it is over: to the request log and the metrics.
 */
import type { EntryName } from "../protocols/types.ts";
import type { AffinityResult } from "../routing/plan.ts";
import type { Usage } from "../usage.ts";
import type { AttemptRecord } from "../billing/attempt_record.ts";

/** How a request ended, beyond its HTTP status. */
export type RequestOutcome = "ok" | "failed" | "aborted" | "refused";

/** One request's record. */
export interface RequestRecord {
  readonly requestId: string;
  /** Wall-clock start, milliseconds since the epoch (for the log's time). */
  readonly time: number;
  /** Monotonic start (`performance.now()`), for durations. */
  readonly startedAt: number;
  readonly method: string;
  readonly path: string;
  entry?: EntryName;
  keyId?: string;
  account?: string;
  model?: string;
  channel?: string;
  /** Cache affinity: the conversation was bound and its channel key served it (hit), or not. */
  affinity?: AffinityResult;
  attempts: number;
  /** The HTTP status the client got. */
  status: number;
  outcome?: RequestOutcome;
  usage?: Usage;
  costMicros?: number;
  /** Milliseconds spent waiting on upstreams (headers, bodies, stream reads). */
  upstreamMs: number;
  /** Milliseconds until the answer's first byte could go out (headers of a stream). */
  firstByteMs?: number;
  /** Set by a stream: the request is over when the stream ends, not when the handler returns. */
  streaming: boolean;
  /** A refusal's error code and message (the error the client got), for its record. */
  refusal?: { code: string; reason: string };
  /** The client's address (behind trusted proxies, the one they name), once known. */
  clientAddress?: string;
  /** The first characters of a key that authenticated nothing; never the whole secret. */
  keyPrefix?: string;
  /** Its upstream attempts, once settled (telemetry makes their spans). */
  attemptRecords?: readonly AttemptRecord[];
  /** Telemetry's note of the request (the server span's context), when tracing is on. */
  trace?: unknown;
  /** The request's messages as JSON, kept for its spans when content is captured. */
  input?: string;
}

/** A fresh record for a request that just arrived. */
export function newRecord(options: {
  requestId: string;
  time: number;
  method: string;
  path: string;
}): RequestRecord {
  return {
    ...options,
    startedAt: performance.now(),
    attempts: 0,
    status: 0,
    upstreamMs: 0,
    streaming: false,
  };
}

/** Milliseconds since the request arrived, as of `now` (monotonic, as `startedAt`). */
export function elapsedMs(record: RequestRecord, now: number = performance.now()): number {
  return now - record.startedAt;
}
