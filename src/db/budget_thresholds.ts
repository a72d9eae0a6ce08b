/**
 * Budget counters and edge-triggered thresholds, as pure decisions on one scope's figures
 * (a key's or an account's): what a hold may still take, what a settlement adds, which
 * thresholds it announces. The SQLite batch applies them in memory (db/budget_totals.ts);
 * PostgreSQL's stored functions do the same (migrations/postgres/013_budgets.sql).
 *
 * Each (scope, period, threshold) fires once: a threshold fires when settled spend
 * reaches it and it was not announced this period; it is re-armed only by a new period
 * (the counter starts afresh) or a raised budget (thresholds the spend is now under fire
 * again when reached). `budget.exhausted` is the threshold 1, reached by settled spend or
 * announced by the first refusal of the period.
 */
import type { BudgetPeriod } from "../clock/budget_period.ts";

/** The threshold of `budget.exhausted`, in parts per million of the budget. */
export const EXHAUSTED_PPM = 1_000_000;
/**
 * Added to a counter's `alertPpm` when a refusal announced `budget.exhausted` before
 * settled spend reached it: the thresholds below still fire as settled spend reaches
 * them, the exhausted one not again.
 */
export const REFUSED_FLAG = 2_000_000;

/** A budget in force for one request: its limit and the period it counts in. */
export interface BudgetLimit {
  micros: number;
  period: BudgetPeriod;
  /** The period's first millisecond (0 for `total`). */
  start: number;
  /** When it renews; null: never. */
  end: number | null;
}

/** One scope's budget figures as stored. */
export interface BudgetCounter {
  /** The period the spend counts in; a newer one starts it afresh. */
  start: number;
  spent: number;
  held: number;
  /** The highest threshold settled spend announced in this period (ppm), plus REFUSED_FLAG. */
  alertPpm: number;
  /** The budget the thresholds were last judged against. */
  alertLimit: number;
}

/** The thresholds of the config as ppm, ascending, with the exhausted one always last. */
export function thresholdLevels(fractions: readonly number[]): number[] {
  const levels = new Set(fractions.map((fraction) => Math.round(fraction * 1e6)));
  levels.add(EXHAUSTED_PPM);
  return [...levels].filter((ppm) => ppm > 0 && ppm <= EXHAUSTED_PPM).sort((a, b) => a - b);
}

/** What was spent in the period starting at `start` (a counter of an older one: nothing). */
export function spentIn(counter: Pick<BudgetCounter, "start" | "spent">, start: number): number {
  return counter.start >= start ? counter.spent : 0;
}

/** What a budget leaves for holds: the limit less what was spent and what is held. */
export function budgetRoom(
  counter: Pick<BudgetCounter, "start" | "spent" | "held">,
  limit: BudgetLimit,
): number {
  return limit.micros - spentIn(counter, limit.start) - counter.held;
}

/** The highest level `spent` reached of a budget of `limit` micros (0: none). */
export function levelOf(spent: number, limit: number, levels: readonly number[]): number {
  let reached = 0;
  // Exact integers: spent / limit >= ppm / 1e6 without rounding.
  const scaled = BigInt(spent) * 1_000_000n;
  for (const ppm of levels) if (scaled >= BigInt(ppm) * BigInt(limit)) reached = ppm;
  return reached;
}

/** Moves the counter to the period of `limit`, and re-arms thresholds a raised budget put back. */
function judgeAgainst(counter: BudgetCounter, limit: BudgetLimit, levels: readonly number[]) {
  if (limit.start > counter.start) {
    counter.start = limit.start;
    counter.spent = 0;
    counter.alertPpm = 0;
  }
  if (limit.micros > counter.alertLimit) {
    const level = levelOf(counter.spent, limit.micros, levels);
    const refused = counter.alertPpm >= REFUSED_FLAG && level >= EXHAUSTED_PPM;
    counter.alertPpm = Math.min(counter.alertPpm % REFUSED_FLAG, level) +
      (refused ? REFUSED_FLAG : 0);
  }
  counter.alertLimit = limit.micros;
}

/**
 * A settlement on one scope: what its hold held on the budget goes (`freed`), `cost` is
 * spent in the period of `limit`; returns the thresholds (ppm) it announces. Without a
 * budget in force now, a hold taken under one still counts its cost (no threshold).
 */
export function settleBudget(
  counter: BudgetCounter,
  limit: BudgetLimit | undefined,
  freed: number,
  cost: number,
  levels: readonly number[],
): number[] {
  counter.held = Math.max(0, counter.held - freed);
  if (!limit) {
    if (freed > 0) counter.spent += cost;
    return [];
  }
  judgeAgainst(counter, limit, levels);
  counter.spent += cost;
  const reached = levelOf(counter.spent, limit.micros, levels);
  const announced = counter.alertPpm % REFUSED_FLAG;
  if (reached <= announced) return [];
  const refused = counter.alertPpm >= REFUSED_FLAG;
  const fired = levels.filter((ppm) =>
    ppm > announced && ppm <= reached && !(refused && ppm === EXHAUSTED_PPM)
  );
  counter.alertPpm = reached + (refused ? REFUSED_FLAG : 0);
  return fired;
}

/** A hold refused for this budget: whether it announces `budget.exhausted` (once a period). */
export function refuseBudget(
  counter: BudgetCounter,
  limit: BudgetLimit,
  levels: readonly number[],
): boolean {
  judgeAgainst(counter, limit, levels);
  if (counter.alertPpm >= EXHAUSTED_PPM) return false;
  counter.alertPpm += REFUSED_FLAG;
  return true;
}

/**
 * The floors (micro-USD, any order) an available balance fell under that were not announced
 * since the last top-up (`announced`: the lowest announced, null for none); the lowest of
 * the floors announced afterwards.
 */
export function balanceFloors(
  available: number,
  announced: number | null,
  floors: readonly number[],
): { fired: number[]; announced: number | null } {
  const fired = floors
    .filter((floor) => available < floor && (announced === null || floor < announced))
    .sort((a, b) => b - a);
  if (fired.length === 0) return { fired, announced };
  return { fired, announced: fired.at(-1)! };
}

/**
 * After a top-up or a credit: the lowest floor still announced, of those the balance is
 * still under (the others are re-armed); null when none is.
 */
export function rearmFloors(
  available: number,
  announced: number | null,
  floors: readonly number[],
): number | null {
  if (announced === null) return null;
  const still = floors.filter((floor) => floor >= announced && available < floor);
  return still.length === 0 ? null : Math.min(...still);
}
