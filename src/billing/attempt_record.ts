/**
 * What each upstream attempt of a request did, as the ledger keeps it beside the row
 * (design.md "Counting rules"): its channel and model, how it ended, when its first byte
 * and first content came, and what it is billed for.
 */
import type { Attempt } from "../routing/router.ts";
import type { Usage } from "../usage.ts";
import type { UpstreamFailureKind } from "../upstream/call.ts";

/**
 * How an attempt ended: `ok` (it served the answer to its end), `failed` (before anything
 * reached the client: it costs nothing), `cut` (after its content reached the client:
 * billed for what it delivered), `aborted` (the client left while it answered).
 */
export type AttemptOutcome = "ok" | "failed" | "cut" | "aborted";

/** One upstream attempt, filled in as it goes. */
export interface AttemptRecord {
  channel: string;
  model: string;
  upstreamModel: string;
  outcome: AttemptOutcome;
  /** The upstream's HTTP status, when it answered one. */
  status?: number;
  reason?: string;
  /**
   * How it failed, when it did: a client gone or a shutdown is no fault of the channel's
   * (its health over time, db/channel_rollup_rows.ts, leaves them out).
   */
  kind?: UpstreamFailureKind;
  /** Milliseconds from sending to the response's head. */
  ttfbMs?: number;
  /** Milliseconds from sending to the first content (streams) or the whole answer. */
  ttfcMs?: number;
  /** What it is billed for: set once it delivered something to the client. */
  usage?: Usage;
  /** Whether `usage` was estimated because the upstream reported none. */
  estimated?: boolean;
  /** Its cost at its own model's prices, set when the request settles. */
  costMicros?: number;
}

/** A fresh record of `attempt`, failed until it is known to have served. */
export function attemptRecord(attempt: Attempt): AttemptRecord {
  return {
    channel: attempt.channel.name,
    model: attempt.model,
    upstreamModel: attempt.upstreamModel,
    outcome: "failed",
  };
}

/** The attempts' usage summed: what the request's row reports. */
export function totalUsage(records: readonly AttemptRecord[]): Usage {
  const total = { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_write_tokens: 0 };
  for (const { usage } of records) {
    if (!usage) continue;
    total.input_tokens += usage.input_tokens;
    total.output_tokens += usage.output_tokens;
    total.cached_tokens += usage.cached_tokens;
    total.cache_write_tokens += usage.cache_write_tokens;
  }
  return total;
}
