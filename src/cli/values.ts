/** Parsers for CLI argument values; a malformed value is bad usage (exit 2). */
import { usdToMicros } from "../billing/money.ts";
import { usageError } from "./output.ts";

const ISO_8601 =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

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
  const ms = ISO_8601.test(text) ? Date.parse(text.replace(" ", "T")) : NaN;
  if (Number.isNaN(ms)) {
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

/** `address/prefix` with the prefix made explicit, or undefined when malformed. */
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
