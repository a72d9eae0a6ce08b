/** Times in support reports: local time with its offset, as the spec asks ("with time zone"). */

/** `ms` since the epoch as ISO 8601 in the machine's time zone, e.g. `2030-01-31T13:00:00.000+01:00`. */
export function isoWithOffset(ms: number): string {
  const date = new Date(ms);
  const offsetMinutes = -date.getTimezoneOffset();
  const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, -1);
  if (offsetMinutes === 0) return `${local}Z`;
  const sign = offsetMinutes > 0 ? "+" : "-";
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, "0");
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, "0");
  return `${local}${sign}${hours}:${minutes}`;
}
