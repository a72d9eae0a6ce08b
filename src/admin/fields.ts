/**
 * The admin service's input values, read and checked once for every caller: the CLI
 * passes its flags' values, the admin API its query parameters and body fields, under the
 * same names. A value that cannot be used is a 400 naming its field (errors.ts); the pure
 * readers (`parseIsoTime`, `normalizeCidr`) also serve the CLI's own flag checks.
 */
import { usdToMicros } from "../billing/money.ts";
import { invalidField } from "./errors.ts";

const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** An ISO 8601 date or date-time as ms since the epoch (a date alone is midnight UTC); undefined if not one. */
export function parseIsoTime(text: string): number | undefined {
  const ms = ISO_8601.test(text) ? Date.parse(text.replace(" ", "T")) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** `address/prefix` with the prefix made explicit (a bare address is one host); undefined if malformed. */
export function normalizeCidr(text: string): string | undefined {
  const [address = "", prefix, ...rest] = text.split("/");
  if (rest.length > 0) return undefined;
  const max = IPV4.test(address) ? 32 : isIpv6(address) ? 128 : undefined;
  if (max === undefined) return undefined;
  if (prefix === undefined) return `${address}/${max}`;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return undefined;
  return `${address}/${Number(prefix)}`;
}

/** Whether `text` is an IPv6 address; the URL parser knows the full grammar. */
function isIpv6(text: string): boolean {
  if (!text.includes(":") || !/^[0-9a-fA-F:.]+$/.test(text)) return false;
  try {
    new URL(`http://[${text}]/`);
    return true;
  } catch {
    return false;
  }
}

/** A time field (ISO 8601) as ms since the epoch. */
export function timeField(param: string, value: string): number {
  const ms = typeof value === "string" ? parseIsoTime(value.trim()) : undefined;
  if (ms === undefined) {
    throw invalidField(
      param,
      `Invalid ${param} "${value}": give an ISO 8601 time such as "2030-01-31" or ` +
        `"2030-01-31T12:00:00Z".`,
    );
  }
  return ms;
}

/** A USD amount (a number or a decimal string) as micro-USD; above 0 when `positive`. */
export function usdField(
  param: string,
  value: number | string,
  { positive = false } = {},
): number {
  let micros: number;
  try {
    if (typeof value !== "number" && typeof value !== "string") {
      throw new RangeError("not a number");
    }
    micros = usdToMicros(value);
  } catch (error) {
    throw invalidField(
      param,
      `Invalid ${param}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (positive && micros === 0) {
    throw invalidField(param, `Invalid ${param}: give an amount above 0.`);
  }
  return micros;
}

/** A whole number of tokens above 0. */
export function tokensField(param: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw invalidField(
      param,
      `Invalid ${param} "${value}": give a whole number of tokens above 0.`,
    );
  }
  return value;
}

/** A list of names (models): trimmed, without duplicates, none empty, at least one. */
export function namesField(param: string, value: readonly string[]): string[] {
  const items = Array.isArray(value)
    ? [...new Set(value.map((item) => typeof item === "string" ? item.trim() : ""))]
    : [];
  if (items.length === 0 || items.some((item) => item === "")) {
    throw invalidField(
      param,
      `Invalid ${param}: give a non-empty list of names, none of them empty (or null for all).`,
    );
  }
  return items;
}

/** A list of CIDRs (IPv4 or IPv6; a bare address is one host), each normalized. */
export function cidrsField(param: string, value: readonly string[]): string[] {
  return namesField(param, value).map((item) => {
    const cidr = normalizeCidr(item);
    if (cidr === undefined) {
      throw invalidField(
        param,
        `Invalid ${param} "${item}": give a CIDR such as "203.0.113.0/24" or "2001:db8::/32".`,
      );
    }
    return cidr;
  });
}

/** A name (of an account, a key's label): trimmed, not empty. */
export function nameField(param: string, value: string): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (name === "") throw invalidField(param, `Invalid ${param}: give a non-empty name.`);
  return name;
}

/** A whole number from `min` to `max` (a limit, an offset, a row id). */
export function countField(param: string, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidField(
      param,
      `Invalid ${param} "${value}": give a whole number from ${min} to ${max}.`,
    );
  }
  return value;
}
