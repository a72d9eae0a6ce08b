/** The `Server-Timing` header: the gateway's own time and the upstream's, in milliseconds. */
import { elapsedMs, type RequestRecord } from "./record.ts";

/**
 * `gateway;dur=…, upstream;dur=…` as of `now` (for a stream: up to its headers): the time
 * spent waiting on upstreams, and the rest of the time since the request came.
 */
export function serverTiming(record: RequestRecord, now: number = performance.now()): string {
  const upstream = record.upstreamMs;
  const gateway = Math.max(0, elapsedMs(record, now) - upstream);
  return `gateway;dur=${gateway.toFixed(1)};desc="tollgate", upstream;dur=${
    upstream.toFixed(1)
  };desc="upstream"`;
}
