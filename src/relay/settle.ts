/**
 * Settling a relayed request: the usage to bill (the upstream's report, or an
 * estimate where it made none), the hold settled in one transaction, and the
 * request's record updated for the log and the metrics.
 */
import type { Hold } from "../billing/accounting.ts";
import { estimateUsage } from "../billing/estimate.ts";
import type { EntryProtocol } from "../config/schema.ts";
import type { Admission } from "../limits/limiter.ts";
import type { Metrics } from "../observability/metrics.ts";
import type { RequestRecord } from "../observability/record.ts";
import { type CountTokens, loadTokenCounter } from "../protocols/token_count.ts";
import type { Usage } from "../protocols/types.ts";
import type { Attempt } from "../routing/router.ts";
import type { RelayOutcome } from "./outcome.ts";

/** What settling one request needs from its route. */
export interface SettlementParts {
  hold: Hold;
  admission: Admission;
  record: RequestRecord;
  metrics: Metrics;
  entry: EntryProtocol;
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
  /** The token counter, loaded only when this request needs a count (see token_count.ts). */
  #counter: CountTokens | undefined;

  constructor(parts: SettlementParts) {
    this.#parts = parts;
  }

  get record(): RequestRecord {
    return this.#parts.record;
  }

  /**
   * Settles the request, records how it ended and frees its limits. It waits only to
   * load the token counter when billing needs an estimate; the ledger write completes
   * later, after the answer went out.
   */
  async settle(outcome: RelayOutcome, attempts: number, attempt?: Attempt): Promise<void> {
    if (needsEstimate(outcome)) this.#counter ??= await loadTokenCounter();
    const { hold, admission, record, entry, body, metrics } = this.#parts;
    const counter = this.#counter;
    const billed = billedUsage(
      outcome,
      () => estimateUsage(entry, body, outcome.outputText(), counter!, this.#parts.inputTokens),
    );
    const channel = attempt?.channel.name;
    record.outcome = outcome.status;
    record.usage = billed.usage;
    record.attempts = attempts;
    record.channel = channel;
    const settling = hold.settle({
      status: outcome.status,
      reason: outcome.reason,
      channel,
      upstreamModel: attempt?.upstreamModel,
      attempts,
      ...billed,
    });
    record.costMicros = settling.costMicros;
    if (hold.reserved) metrics.holdReleased();
    // tpm counts the output billed; the concurrency slot is free once the request ended.
    void admission.settle(billed.usage.output_tokens);
    void admission.release();
  }
}

/**
 * Whether billing `outcome` needs a tokenizer estimate: not when the request finished
 * with the upstream's report, nor when it failed before producing anything.
 */
function needsEstimate(outcome: RelayOutcome): boolean {
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
