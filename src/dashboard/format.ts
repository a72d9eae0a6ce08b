/**
 * How the dashboard writes figures: money as people read it (cents from a dollar up, the
 * decimals a small amount needs below, never $0.00 for an amount that is not zero) with the
 * exact micro-USD figure beside it for a title, counts with separators, durations.
 */
import { formatUsd } from "../billing/money.ts";

/**
 * USD as people read it: `$1,234.57` from a dollar up; below, two significant digits with
 * at least two decimals and at most six (`$0.42`, `$0.015`, `$0.0042`, `$0.000001`).
 */
export function usd(amount: number): string {
  // The API's USD numbers are whole micro-USD divided by 1e6: this multiplication is exact once rounded.
  const micros = Math.round(amount * 1e6);
  if (micros === 0) return "$0.00";
  const sign = micros < 0 ? "-" : "";
  const abs = Math.abs(micros);
  if (abs >= 1_000_000) {
    const cents = Math.round(abs / 10_000);
    const dollars = Math.floor(cents / 100).toLocaleString("en-US");
    return `${sign}$${dollars}.${String(cents % 100).padStart(2, "0")}`;
  }
  // 0.0042 is 4.2e-3: two significant digits need 4 decimals.
  const exponent = Math.floor(Math.log10(abs / 1e6));
  let decimals = Math.min(6, Math.max(2, 1 - exponent));
  let scaled = Math.round(abs / 10 ** (6 - decimals));
  // Rounded up a digit (0.0995 to 0.100): one decimal fewer says it.
  if (scaled === 100 && decimals > 2) [scaled, decimals] = [10, decimals - 1];
  // Just under a dollar rounds up to one.
  if (scaled >= 10 ** decimals) return `${sign}$1.00`;
  return `${sign}$0.${String(scaled).padStart(decimals, "0")}`;
}

/** USD exact to the micro-USD the ledger keeps (`$19.999538`), for a title and for JSON readers. */
export function exactUsd(amount: number): string {
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
