/**
 * Settling a relayed request: each attempt that delivered to the client billed for its
 * usage (the upstream's report, or an estimate where it made none), the hold settled in
 * one transaction with every attempt, and the request's record updated for the log and
 * the metrics.
 */
import type { Hold } from "../billing/accounting.ts";
import { type AttemptRecord, totalUsage } from "../billing/attempt_record.ts";
import { estimateUsage } from "../billing/estimate.ts";
import { attemptOutput } from "../observability/attempt_times.ts";
import type { Protocol } from "../protocols/index.ts";
import type { Admission } from "../limits/limiter.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { RequestRecord } from "../observability/record.ts";
import { type CountTokens, loadTokenCounter } from "../tokens/token_count.ts";
import type { Delivered, RelayOutcome } from "./outcome.ts";
import type { Usage } from "../usage.ts";

/** What settling one request needs from its route. */
export interface SettlementParts {
  hold: Hold;
  admission: Admission;
  record: RequestRecord;
  metrics: Metrics;
  entry: Protocol;
  /** The client's body, whose prompt an estimate counts when the upstream reported no usage. */
  body: Record<string, unknown>;
  /** Its input tokens when admission counted them already (not counted again). */
  inputTokens?: number;
}

/**
 * The settling of one relayed request, apart from the route's other state: a stream
 * holds it until it ends, and holds nothing else of the route through it.
 */
export class Settlement {
  readonly #parts: SettlementParts;
  /** The token counter, loaded only when this request needs a count (see tokens/token_count.ts). */
  #counter: CountTokens | undefined;

  constructor(parts: SettlementParts) {
    this.#parts = parts;
  }

  get record(): RequestRecord {
    return this.#parts.record;
  }

  /**
   * Sets what `attempt` is billed for, from what it delivered; it waits only to load the
   * token counter when the upstream's report is missing or short.
   */
  async bill(attempt: AttemptRecord, delivered: Delivered): Promise<void> {
    if (needsEstimate(delivered)) this.#counter ??= await loadTokenCounter();
    const { entry, body, inputTokens } = this.#parts;
    const counter = this.#counter;
    const billed = billedUsage(
      delivered,
      () => estimateUsage(entry, body, delivered.outputText(), counter!, inputTokens),
    );
    attempt.usage = billed.usage;
    if (billed.estimated) attempt.estimated = true;
    attemptOutput(attempt, delivered.outputText);
  }

  /**
   * Settles the request with its attempts, records how it ended and frees its limits. The
   * ledger write completes later, after the answer went out.
   */
  settle(
    outcome: RelayOutcome,
    attempts: readonly AttemptRecord[],
    served?: AttemptRecord,
  ): void {
    const { hold, admission, record, metrics } = this.#parts;
    const usage = totalUsage(attempts);
    record.outcome = outcome.status;
    record.usage = usage;
    record.attempts = attempts.length;
    record.attemptRecords = attempts;
    record.channel = served?.channel;
    const settling = hold.settle({ ...outcome, served, attempts });
    record.costMicros = settling.costMicros;
    if (hold.reserved) metrics.holdReleased();
    // tpm counts the output billed; the concurrency slot is free once the request ended.
    void admission.settle(usage.output_tokens);
    void admission.release();
  }
}

/**
 * Whether billing what was delivered needs a tokenizer estimate: not when it finished with
 * the upstream's report, nor when it failed before producing anything.
 */
function needsEstimate(delivered: Delivered): boolean {
  if (delivered.status === "ok" && delivered.usage) return false;
  return !(!delivered.usage && delivered.status === "failed" && delivered.outputText() === "");
}

/**
 * The usage to bill: the upstream's report when the request finished; nothing when
 * it failed before producing output; and for a stream cut short, at least what was
 * produced, since the final usage report never came.
 */
export function billedUsage(
  delivered: Delivered,
  estimate: () => Usage,
): { usage: Usage; estimated: boolean } {
  const reported = delivered.usage;
  if (!needsEstimate(delivered)) return { usage: reported ?? ZERO_USAGE, estimated: false };
  if (!reported) return { usage: estimate(), estimated: true };
  const estimated = estimate();
  if (reported.input_tokens > 0 && reported.output_tokens >= estimated.output_tokens) {
    return { usage: reported, estimated: false };
  }
  return {
    usage: {
      ...reported,
      input_tokens: reported.input_tokens || estimated.input_tokens,
      output_tokens: Math.max(reported.output_tokens, estimated.output_tokens),
    },
    estimated: true,
  };
}

const ZERO_USAGE = { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_write_tokens: 0 };
