/**
 * Accounting against the database: a hold of the worst-case cost before the upstream
 * call, grown before a dearer fallback or a rescue, and one settlement batch after the
 * answer went out (ledger row, debit, key tokens, release). Every request takes a hold, even a free one: the hold row is what
 * turns into an `interrupted` ledger row if the process dies before settling.
 */
import { type NewHold, type SettlementFailure, settlementOf, type Store } from "../db/store.ts";
import { GatewayError } from "../errors.ts";
import { unlessUnavailable } from "../db/unavailable.ts";
import { describeError, type Logger } from "../log.ts";
import type { Accounting, Admission, Hold, Settlement, Settling } from "./accounting.ts";
import { formatUsd } from "./money.ts";
import { costMicros, createPriceBook } from "./pricing.ts";
import { totalUsage } from "./attempt_record.ts";
import { budgetExceeded, holdBudgetsOf, settleBudgetsOf } from "./budgets.ts";

/** Output tokens assumed for a hold when neither the request nor the model caps them. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;
/** A hold outlives the request's total timeout by this much before the sweeper ends it. */
const HOLD_GRACE_MS = 60_000;

/** Builds the database-backed accounting of one serving instance. */
export function createLedgerAccounting(options: {
  store: Store;
  instanceId: string;
  now: () => number;
  log: Logger;
}): Accounting {
  const { store, instanceId, now, log } = options;
  /** Settlement batches not yet done: a store gives the settlements of one batch one promise. */
  const pending = new Set<Promise<readonly SettlementFailure[]>>();
  /** Follows a settlement's batch, once a batch; a failed one's hold stays, for recovery. */
  const watch = (batch: Promise<readonly SettlementFailure[]>) => {
    if (pending.has(batch)) return;
    pending.add(batch);
    void batch.then((failures) => {
      pending.delete(batch);
      for (const { settle, error } of failures) {
        // The sweep turns the hold into an interrupted row, so nothing vanishes.
        log.error("settlement failed", {
          request_id: settle.requestId,
          error: describeError(error),
        });
      }
    });
  };
  const priceOf = createPriceBook();
  return {
    async hold(admission: Admission): Promise<Hold> {
      const { config, principal } = admission;
      const group = config.groups[principal.group]!;
      const pricedAt = (name: string) => priceOf(config.models[name], group);
      /** An attempt's worst case: its input, and its cap on output or its model's. */
      const worstCase = (name: string, input: number, maxOutput?: number) => {
        const output = maxOutput ?? config.models[name]?.max_output_tokens ??
          DEFAULT_MAX_OUTPUT_TOKENS;
        const usage = { input_tokens: input, output_tokens: output };
        return {
          micros: costMicros({ ...usage, cached_tokens: 0, cache_write_tokens: 0 }, pricedAt(name)),
          tokens: input + output,
          output,
        };
      };
      const priced = admission.pricedModel ?? admission.model;
      const price = pricedAt(priced);
      const worst = worstCase(priced, admission.inputTokens, admission.maxOutputTokens);
      const outputTokens = worst.output;
      const tokens = worst.tokens;
      /** What the hold covers now, before an unlimited account or a quota-less key zeroes it. */
      const covered = { micros: worst.micros, tokens };
      // Only a quota needs tokens held: a key without one keeps its row out of the hold's
      // commit (one page of three). A quota set meanwhile applies from the key's next
      // lookup, as every key change does (auth/key_cache.ts).
      const heldTokens = principal.quotaTokens === null ? 0 : tokens;
      const amountMicros = principal.unlimited ? 0 : worst.micros;
      const startedAt = now();
      const holdId = `hold_${crypto.randomUUID()}`;
      // Budgets count the worst case whether or not the account is unlimited.
      const budgets = holdBudgetsOf(config, principal, startedAt);
      // A database that cannot be reached refuses the request with 503.
      const hold: NewHold = {
        id: holdId,
        instanceId,
        accountId: principal.accountId,
        keyId: principal.id,
        amountMicros,
        tokens: heldTokens,
        createdAt: startedAt,
        expiresAt: startedAt + config.timeouts.total + HOLD_GRACE_MS,
        requestId: admission.requestId,
        model: admission.model,
        entryPoint: admission.entry,
        stream: admission.stream,
        inputTokens: admission.likelyInputTokens,
        inputCostMicros: costMicros({
          input_tokens: admission.likelyInputTokens,
          output_tokens: 0,
          cached_tokens: 0,
          cache_write_tokens: 0,
        }, price),
      };
      if (budgets) {
        hold.budgets = budgets;
        hold.keyBudgetMicros = budgets.key ? worst.micros : 0;
        hold.accountBudgetMicros = budgets.account ? worst.micros : 0;
      }
      const result = await unlessUnavailable(store.takeHold(hold));
      if (!result.ok && result.reason === "balance") {
        throw new GatewayError(
          403,
          "insufficient_user_quota",
          `Insufficient balance: this request may cost up to $${formatUsd(amountMicros)} ` +
            `(${admission.inputTokens} input and ${outputTokens} output tokens at most) but the account has ` +
            `$${
              formatUsd(result.availableMicros)
            } available. Top up the account or lower max_tokens.`,
        );
      }
      if (!result.ok && result.reason !== "key_quota") {
        const scope = result.reason === "key_budget" ? "key" : "account";
        throw budgetExceeded(
          scope,
          budgets![scope]!,
          result.availableMicros,
          worst.micros,
          principal,
        );
      }
      if (!result.ok) {
        throw new GatewayError(
          401,
          "insufficient_user_quota",
          `Insufficient key quota: this request may use up to ${tokens} tokens but the key has ` +
            `${result.availableTokens} left. Lower max_tokens, or ask the operator to raise the quota ` +
            `(\`tollgate key update ${principal.id} --quota TOKENS\`).`,
        );
      }
      const extend: Hold["extend"] = async (extra) => {
        for (const [name, value] of Object.entries(extra)) {
          if (!Number.isSafeInteger(value) || value < 0) {
            throw new RangeError(
              `Extending a hold: ${name} must be a whole number of at least 0, got ${value}.`,
            );
          }
        }
        // As the hold itself: an unlimited account holds no money, a key without a quota
        // no tokens.
        const micros = principal.unlimited ? 0 : extra.amountMicros;
        const tokens = principal.quotaTokens === null ? 0 : extra.tokens;
        const onBudgets = budgets && extra.amountMicros > 0
          ? { micros: extra.amountMicros, in: budgets }
          : undefined;
        if (micros === 0 && tokens === 0 && !onBudgets) return true;
        const grown = await unlessUnavailable(store.extendHold(holdId, micros, tokens, onBudgets));
        if (!grown.ok && grown.reason !== "balance" && grown.reason !== "key_quota") {
          const scope = grown.reason === "key_budget" ? "key" : "account";
          refusal = budgetExceeded(
            scope,
            budgets![scope]!,
            grown.availableMicros,
            extra.amountMicros,
            principal,
          );
        }
        return grown.ok;
      };
      /** Why the last growth was refused, when a budget refused it. */
      let refusal: GatewayError | undefined;
      return {
        reserved: amountMicros > 0 || principal.quotaTokens !== null || budgets !== undefined,
        get refusal() {
          return refusal;
        },
        extend,
        async cover(next, billed) {
          const spent = { micros: 0, tokens: 0 };
          for (const { model, usage } of billed) {
            if (!usage) continue;
            spent.micros += costMicros(usage, pricedAt(model));
            spent.tokens += usage.input_tokens + usage.output_tokens;
          }
          const more = worstCase(next.model, next.inputTokens, next.maxOutputTokens);
          const needed = { micros: spent.micros + more.micros, tokens: spent.tokens + more.tokens };
          const extra = {
            amountMicros: Math.max(0, needed.micros - covered.micros),
            tokens: Math.max(0, needed.tokens - covered.tokens),
          };
          if (extra.amountMicros === 0 && extra.tokens === 0) return true;
          if (!await extend(extra)) return false;
          covered.micros += extra.amountMicros;
          covered.tokens += extra.tokens;
          return true;
        },
        settle(settlement: Settlement): Settling {
          const { attempts, served } = settlement;
          // Each attempt at its own model's prices: a fallback is billed as what it is.
          for (const attempt of attempts) {
            attempt.costMicros = attempt.usage
              ? costMicros(attempt.usage, pricedAt(attempt.model))
              : 0;
          }
          const usage = totalUsage(attempts);
          // A failed request names the channel it tried last.
          const last = served ?? attempts.at(-1);
          const cost = attempts.reduce((sum, attempt) => sum + attempt.costMicros!, 0);
          watch(store.settleHold({
            ...settlementOf(hold),
            createdAt: now(),
            channel: last?.channel ?? null,
            upstreamModel: last?.upstreamModel ?? null,
            servedModel: served?.model ?? null,
            attempts: attempts.length,
            attemptLog: attempts.length > 0 ? JSON.stringify(attempts) : null,
            status: settlement.status,
            reason: settlement.reason ?? null,
            inputTokens: usage.input_tokens,
            outputTokens: usage.output_tokens,
            cachedTokens: usage.cached_tokens,
            cacheWriteTokens: usage.cache_write_tokens,
            estimated: attempts.some((attempt) => attempt.estimated === true),
            costMicros: cost,
            durationMs: now() - startedAt,
            budgets: settleBudgetsOf(config, principal, now()),
          }));
          return { costMicros: cost };
        },
      };
    },
    async drain() {
      while (pending.size > 0) await Promise.all([...pending]);
      // The holds of requests still running, which a store may not have written yet. Those
      // it cannot write stay in its journal, for the next start (db/hold_journal.ts).
      await store.flush().catch((error) => {
        log.error("writing holds failed", { error: describeError(error) });
      });
    },
  };
}
