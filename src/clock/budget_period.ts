/**
 * Budget periods: a day, a week (from Monday) or a month of the `[budgets] timezone`, or
 * `total` (never renews), cut by the zone's offsets alone (time_zone.ts).
 */
import { instantOf, type TimeZone } from "./time_zone.ts";

/** How often a budget renews. */
export type BudgetPeriod = "day" | "week" | "month" | "total";

/** The budget periods, as the config and the CLI name them. */
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ["day", "week", "month", "total"];

/** One period: its first millisecond, and the first of the next (null: never renews). */
export interface PeriodBounds {
  start: number;
  end: number | null;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The period of kind `period` that contains `at` in `zone`. */
export function periodBounds(period: BudgetPeriod, at: number, zone: TimeZone): PeriodBounds {
  if (period === "total") return { start: 0, end: null };
  const wall = at + zone.offsetAt(at) * MINUTE;
  const day = Math.floor(wall / DAY);
  let startDay: number;
  let endDay: number;
  if (period === "day") {
    startDay = day;
    endDay = day + 1;
  } else if (period === "week") {
    // 1970-01-01 was a Thursday: (day + 3) mod 7 counts the days since Monday.
    startDay = day - (((day + 3) % 7) + 7) % 7;
    endDay = startDay + 7;
  } else {
    const date = new Date(day * DAY);
    const year = date.getUTCFullYear();
    const month = date.getUTCMonth();
    startDay = Date.UTC(year, month, 1) / DAY;
    endDay = Date.UTC(year, month + 1, 1) / DAY;
  }
  return { start: instantOf(startDay * DAY, zone), end: instantOf(endDay * DAY, zone) };
}

/**
 * Period bounds of one zone, each kind's kept until its period ends: on the request path
 * a period is computed once per period, not per request.
 */
export function periodCalendar(zone: TimeZone): (period: BudgetPeriod, at: number) => PeriodBounds {
  const cached = new Map<BudgetPeriod, PeriodBounds>();
  return (period, at) => {
    const known = cached.get(period);
    if (known && at >= known.start && (known.end === null || at < known.end)) return known;
    const bounds = periodBounds(period, at, zone);
    cached.set(period, bounds);
    return bounds;
  };
}
