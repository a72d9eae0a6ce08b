/** The `Server-Timing` header: the gateway's own time and the upstream's, in milliseconds. */
import { elapsedMs, type RequestRecord } from "./record.ts";

/** `gateway;dur=…, upstream;dur=…` as of now (for a stream: up to its headers). */
export function serverTiming(record: RequestRecord): string {
  const upstream = record.upstreamMs;
  const gateway = Math.max(0, elapsedMs(record) - upstream);
  return `gateway;dur=${gateway.toFixed(1)};desc="tollgate", upstream;dur=${
    upstream.toFixed(1)
  };desc="upstream"`;
}
