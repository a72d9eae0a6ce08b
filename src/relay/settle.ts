/**
 * Settling a relayed request: the usage to bill (the upstream's report, or an
 * estimate where it made none), the hold settled in one transaction, and the
 * request's record updated for the log and the metrics.
 */
import type { Hold } from "../billing/accounting.ts";
import { estimateUsage } from "../billing/estimate.ts";
import type { EntryProtocol } from "../config/schema.ts";
import type { Admission } from "../limits/limiter.ts";
import type { Logger } from "../log.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { RequestRecord } from "../observability/record.ts";
import { type CountTokens, loadTokenCounter } from "../protocols/token_count.ts";
import type { Usage } from "../protocols/types.ts";
import type { Attempt } from "../routing/router.ts";
import type { RelayOutcome } from "./outcome.ts";

/** Everything one settlement needs. */
export interface SettleRequest {
  hold: Hold;
  log: Logger;
  metrics: Metrics;
  record: RequestRecord;
  outcome: RelayOutcome;
  attempts: number;
  channel?: string;
  upstreamModel?: string;
  /**
   * A tokenizer estimate of the usage, for when the upstream reported none; called only
   * when `needsEstimate(outcome)`, so the caller loads the counter for those alone.
   */
  estimate: () => Usage;
}

/**
 * Settles a request and records how it ended. The cost is known at once; the ledger
 * write completes later (the returned promise), after the answer went out.
 */
export function settleRequest(options: SettleRequest): Promise<void> {
  const { hold, record, outcome } = options;
  const billed = billedUsage(outcome, options.estimate);
  record.outcome = outcome.status;
  record.usage = billed.usage;
  record.attempts = options.attempts;
  record.channel = options.channel;
  const settling = hold.settle({
    status: outcome.status,
    reason: outcome.reason,
    channel: options.channel,
    upstreamModel: options.upstreamModel,
    attempts: options.attempts,
    ...billed,
  });
  record.costMicros = settling.costMicros;
  if (hold.reserved) options.metrics.holdReleased();
  return settling.written;
}

/** What settling one request needs from its route. */
export interface SettlementParts {
  hold: Hold;
  admission: Admission;
  record: RequestRecord;
  log: Logger;
  metrics: Metrics;
  entry: EntryProtocol;
  /** The client's body, whose prompt an estimate counts when the upstream reported no usage. */
  body: Record<string, unknown>;
}

/**
 * The settling of one relayed request, apart from the route's other state: a stream
 * holds it until it ends, and holds nothing else of the route through it.
 */
export class Settlement {
  readonly record: RequestRecord;
  readonly #parts: SettlementParts;
  /** The token counter, loaded only when this request needs a count (see token_count.ts). */
  #counter: CountTokens | undefined;

  constructor(parts: SettlementParts) {
    this.#parts = parts;
    this.record = parts.record;
  }

  /** Loads the token counter, which settling needs when `needsEstimate(outcome)`. */
  async loadCounter(): Promise<void> {
    this.#counter ??= await loadTokenCounter();
  }

  /**
   * Settles the request (after `loadCounter` if it needs an estimate) and frees its
   * limits. The cost is known at once; the ledger write completes later, the returned
   * promise.
   */
  settle(outcome: RelayOutcome, attempts: number, attempt?: Attempt): Promise<void> {
    const { hold, admission, record, entry, body } = this.#parts;
    const counter = this.#counter;
    const written = settleRequest({
      hold,
      log: this.#parts.log,
      metrics: this.#parts.metrics,
      record,
      outcome,
      attempts,
      channel: attempt?.channel.name,
      upstreamModel: attempt?.upstreamModel,
      estimate: () => estimateUsage(entry, body, outcome.outputText(), counter!),
    });
    // tpm counts the output billed; the concurrency slot is free once the request ended.
    void admission.settle(record.usage?.output_tokens ?? 0);
    void admission.release();
    return written;
  }
}

/**
 * Whether billing `outcome` needs a tokenizer estimate: not when the request finished
 * with the upstream's report, nor when it failed before producing anything.
 */
export function needsEstimate(outcome: RelayOutcome): boolean {
  if (outcome.status === "ok" && outcome.usage) return false;
  return !(!outcome.usage && outcome.status === "failed" && outcome.outputText() === "");
}

/**
 * The usage to bill: the upstream's report when the request finished; nothing when
 * it failed before producing output; and for a stream cut short, at least what was
 * produced, since the final usage report never came.
 */
export function billedUsage(
  outcome: RelayOutcome,
  estimate: () => Usage,
): { usage: Usage; estimated: boolean } {
  const reported = outcome.usage;
  if (!needsEstimate(outcome)) return { usage: reported ?? ZERO_USAGE, estimated: false };
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
