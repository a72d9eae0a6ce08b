/** Parsers for CLI argument values; a malformed value is bad usage (exit 2). */
import { normalizeCidr, parseIsoTime } from "../admin/fields.ts";
import { usdToMicros } from "../billing/money.ts";
import { usageError } from "./output.ts";

/** A USD amount as integer micro-USD. */
export function parseUsdArg(text: string, what: string, usage: string): number {
  try {
    return usdToMicros(text);
  } catch (error) {
    throw usageError(`Invalid ${what}: ${error instanceof Error ? error.message : error}`, usage);
  }
}

/** A positive whole number of tokens. */
export function parseTokensArg(text: string, what: string, usage: string): number {
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw usageError(`Invalid ${what} "${text}": give a whole number of tokens above 0`, usage);
  }
  return value;
}

/** An ISO 8601 date or date-time as ms since the epoch; a date alone is midnight UTC. */
export function parseIsoArg(text: string, what: string, usage: string): number {
  const ms = parseIsoTime(text);
  if (ms === undefined) {
    throw usageError(
      `Invalid ${what} "${text}": give an ISO 8601 time such as "2030-01-31" or "2030-01-31T12:00:00Z"`,
      usage,
    );
  }
  return ms;
}

/** A comma-separated list of non-empty items, trimmed and without duplicates. */
export function parseListArg(text: string, what: string, usage: string): string[] {
  const items = [...new Set(text.split(",").map((item) => item.trim()))];
  if (items.some((item) => item === "")) {
    throw usageError(
      `Invalid ${what} "${text}": give a comma-separated list with no empty items`,
      usage,
    );
  }
  return items;
}

/** A comma-separated list of CIDRs (IPv4 or IPv6); a bare address means just that address. */
export function parseCidrListArg(text: string, what: string, usage: string): string[] {
  return parseListArg(text, what, usage).map((item) => {
    const cidr = normalizeCidr(item);
    if (cidr === undefined) {
      throw usageError(
        `Invalid ${what} "${item}": give a CIDR such as "203.0.113.0/24" or "2001:db8::/32"`,
        usage,
      );
    }
    return cidr;
  });
}
