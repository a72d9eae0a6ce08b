/**
 * Time zones as offsets from UTC: "UTC", a fixed offset ("+05:30", "-03:30") or an IANA name
 * ("Europe/Berlin"). Everything else (budget periods, the dashboard's days and weeks) is
 * computed from a zone's offset at an instant, so fixed offsets (half-hour ones included)
 * need no Intl, and an IANA zone's offsets, daylight saving included, come from Intl alone.
 */

/** A time zone: its offset from UTC (minutes east) at an instant (ms since the epoch). */
export interface TimeZone {
  name: string;
  offsetAt(utcMs: number): number;
}

const MINUTE = 60_000;
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
export function instantOf(wall: number, zone: TimeZone): number {
  // Two passes: the offset of the instant found first may differ across a change of
  // daylight saving; a wall time that does not exist lands just after the gap.
  const first = wall - zone.offsetAt(wall) * MINUTE;
  return wall - zone.offsetAt(first) * MINUTE;
}
