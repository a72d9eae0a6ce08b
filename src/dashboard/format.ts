/** How the dashboard writes figures: money exact to the micro-USD, counts with separators. */
import { formatUsd } from "../billing/money.ts";

/** USD as `$1234.5` (exact: the ledger's micro-USD, no rounding). */
export function usd(amount: number): string {
  // The API's USD numbers are whole micro-USD divided by 1e6: this multiplication is exact once rounded.
  const text = formatUsd(Math.round(amount * 1e6));
  return text.startsWith("-") ? `-$${text.slice(1)}` : `$${text}`;
}

/** A count with thousands separators. */
export function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** A share as a percentage with one decimal; "–" when there is nothing to share. */
export function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((part / whole) * 100).toFixed(1)}%`;
}

/** Milliseconds as `850 ms` or `2.4 s`; "–" when unknown. */
export function duration(ms: number | null): string {
  if (ms === null) return "–";
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** An ISO 8601 time as `2030-01-31 12:00` (UTC); "–" when absent. */
export function time(iso: string | null): string {
  return iso === null ? "–" : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}
