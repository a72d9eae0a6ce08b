/**
 * The viewer's time zone, in which the dashboard writes times and cuts days, weeks and
 * months: its IANA name comes from the `tollgate_tz` cookie, which the page's script sets
 * from the browser (assets/dashboard.js); UTC without it, or for a name the runtime does
 * not know. Its offsets and local times are clock/time_zone.ts's, as budget periods' are.
 */
import { instantOf, type TimeZone as Offsets, timeZone } from "../clock/time_zone.ts";

/** The cookie the page's script writes the browser's time zone into. */
export const ZONE_COOKIE = "tollgate_tz";

/** A date and time of day as a zone's clocks show them (month 1-12, weekday 0 for Sunday). */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A time zone's calendar: local times of instants, and the instants local days start at. */
export class TimeZone {
  readonly #offsets: Offsets;

  private constructor(readonly name: string) {
    this.#offsets = timeZone(name);
  }

  /** The zone of that IANA name; UTC for none or for a name the runtime does not know. */
  static of(name: string | undefined): TimeZone {
    if (name && /^[A-Za-z0-9_+\-/]{1,64}$/.test(name)) {
      try {
        return new TimeZone(name);
      } catch {
        // An unknown zone: UTC below.
      }
    }
    return new TimeZone("UTC");
  }

  /** Whether its clocks are UTC's all year (its days are the rollups' days). */
  get isUtc(): boolean {
    return this.offsetMs(Date.UTC(2030, 0, 1)) === 0 && this.offsetMs(Date.UTC(2030, 6, 1)) === 0;
  }

  /** The local date and time at `ms`. */
  local(ms: number): LocalTime {
    const wall = new Date(ms + this.offsetMs(ms));
    return {
      year: wall.getUTCFullYear(),
      month: wall.getUTCMonth() + 1,
      day: wall.getUTCDate(),
      hour: wall.getUTCHours(),
      minute: wall.getUTCMinutes(),
      weekday: wall.getUTCDay(),
    };
  }

  /** How far its clocks are ahead of UTC at `ms`, in ms (whole minutes). */
  offsetMs(ms: number): number {
    return this.#offsets.offsetAt(ms) * 60_000;
  }

  /** The instant its clocks show that date at that hour (month 1-12; overflow rolls over). */
  instant(year: number, month: number, day: number, hour = 0): number {
    return instantOf(Date.UTC(year, month - 1, day, hour), this.#offsets);
  }

  /** The start of the local day that holds `ms`, and of the one `days` later. */
  startOfDay(ms: number, days = 0): number {
    const t = this.local(ms);
    return this.instant(t.year, t.month, t.day + days);
  }

  /** The start of the local week (from Monday) that holds `ms`. */
  startOfWeek(ms: number): number {
    const t = this.local(ms);
    return this.instant(t.year, t.month, t.day - ((t.weekday + 6) % 7));
  }

  /** The start of the local month that holds `ms`, and of the one `months` later. */
  startOfMonth(ms: number, months = 0): number {
    const t = this.local(ms);
    return this.instant(t.year, t.month + months, 1);
  }

  /** The start of a local date written `2030-01-31`; undefined when it is not one. */
  parseDate(text: string): number | undefined {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
    if (!match) return undefined;
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
    const start = this.instant(year, month, day);
    return this.local(start).day === day ? start : undefined;
  }

  /** `2030-01-31`, the local date at `ms` (what a date field holds). */
  date(ms: number): string {
    const t = this.local(ms);
    return `${t.year}-${pad(t.month)}-${pad(t.day)}`;
  }

  /** `2030-01-31 14:05`, the local date and time at `ms`. */
  dateTime(ms: number): string {
    const t = this.local(ms);
    return `${this.date(ms)} ${pad(t.hour)}:${pad(t.minute)}`;
  }

  /** `14:05`. */
  clock(ms: number): string {
    const t = this.local(ms);
    return `${pad(t.hour)}:${pad(t.minute)}`;
  }

  /** `Fri 31 Jan`. */
  day(ms: number): string {
    const t = this.local(ms);
    return `${WEEKDAYS[t.weekday]} ${t.day} ${MONTHS[t.month - 1]}`;
  }

  /** `Europe/Paris (UTC+01:00)`: the zone and its offset at `ms`. */
  label(ms: number): string {
    const offset = this.offsetMs(ms) / 60_000;
    const sign = offset < 0 ? "−" : "+";
    const abs = Math.abs(offset);
    const utc = `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
    return this.name === "UTC" ? "UTC" : `${this.name} (${utc})`;
  }
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}
