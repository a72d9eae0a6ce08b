/**
 * Budget periods: a day, a week (from Monday) or a month of the `[budgets] timezone`, or
 * `total` (never renews). A zone is "UTC", a fixed offset ("+05:30", "-03:30") or an IANA
 * name ("Europe/Berlin"); the arithmetic takes the zone's UTC offset at an instant and
 * nothing else, so fixed offsets (half-hour ones included) are computed exactly without
 * Intl, and an IANA zone's offsets come from Intl only (its daylight saving included).
 */

/** How often a budget renews. */
export type BudgetPeriod = "day" | "week" | "month" | "total";

/** The budget periods, as the config and the CLI name them. */
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ["day", "week", "month", "total"];

/** A time zone: its offset from UTC (minutes east) at an instant (ms since the epoch). */
export interface TimeZone {
  name: string;
  offsetAt(utcMs: number): number;
}

/** One period: its first millisecond, and the first of the next (null: never renews). */
export interface PeriodBounds {
  start: number;
  end: number | null;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;

/** The zone `name` names; throws a RangeError naming what is accepted when none. */
export function timeZone(name: string): TimeZone {
  if (name === "UTC" || name === "Z") return { name, offsetAt: () => 0 };
  const fixed = OFFSET.exec(name);
  if (fixed) {
    const minutes = Number(fixed[2]) * 60 + Number(fixed[3]);
    if (Number(fixed[2]) > 14 || Number(fixed[3]) > 59) throw badZone(name);
    const offset = fixed[1] === "-" ? -minutes : minutes;
    return { name, offsetAt: () => offset };
  }
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: name,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    throw badZone(name);
  }
  return {
    name,
    offsetAt(utcMs) {
      const parts: Record<string, number> = {};
      for (const part of format.formatToParts(new Date(utcMs))) {
        if (part.type !== "literal") parts[part.type] = Number(part.value);
      }
      const wall = Date.UTC(
        parts.year!,
        parts.month! - 1,
        parts.day!,
        parts.hour!,
        parts.minute!,
        parts.second!,
      );
      return Math.round((wall - (utcMs - (utcMs % 1000 + 1000) % 1000)) / MINUTE);
    },
  };
}

function badZone(name: string): RangeError {
  return new RangeError(
    `Unknown time zone "${name}": give "UTC", an offset such as "+05:30", or an IANA name ` +
      `such as "Europe/Berlin".`,
  );
}

/** The instant (UTC ms) of a wall-clock time of `zone` (ms since the epoch as if UTC). */
function instantOf(wall: number, zone: TimeZone): number {
  // Two passes: the offset of the instant found first may differ across a change of
  // daylight saving; a wall time that does not exist lands just after the gap.
  const first = wall - zone.offsetAt(wall) * MINUTE;
  return wall - zone.offsetAt(first) * MINUTE;
}

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
