/**
 * Money as integer micro-USD (1 USD = 1,000,000 micros), so sums and debits are
 * exact; USD decimals exist only at the edges (CLI arguments, JSON output).
 */

const MICROS_PER_USD = 1_000_000n;
const DECIMAL_USD = /^(\d*)(?:\.(\d*))?$/;

/** Parses a USD amount ("12.5", 0.1) into micro-USD exactly; throws RangeError when not representable. */
export function usdToMicros(usd: number | string): number {
  // String(number) gives the shortest text that round-trips, so 0.1 reads as "0.1";
  // exponent forms ("1e-7") are beyond 6 decimals and fail the pattern below.
  const text = typeof usd === "number" ? String(usd) : usd.trim();
  if (text.startsWith("-")) {
    throw new RangeError(`Parsing USD amount "${text}" failed: it is negative; give 0 or more.`);
  }
  const match = DECIMAL_USD.exec(text);
  const whole = match?.[1] ?? "";
  // Trailing zeros add no precision, so "0.1000000" is as exact as "0.1".
  const fraction = (match?.[2] ?? "").replace(/0+$/, "");
  if (!match || (whole === "" && (match[2] ?? "") === "")) {
    throw new RangeError(
      `Parsing USD amount "${text}" failed: it is not a decimal number; write it like "12.50".`,
    );
  }
  if (fraction.length > 6) {
    throw new RangeError(
      `Parsing USD amount "${text}" failed: it has more than 6 decimals; round it to whole micro-USD.`,
    );
  }
  const micros = BigInt(whole || "0") * MICROS_PER_USD + BigInt(fraction.padEnd(6, "0"));
  if (micros > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`Parsing USD amount "${text}" failed: it is too large.`);
  }
  return Number(micros);
}

/** Converts micro-USD to a USD number rounded to 6 places, for JSON output. */
export function microsToUsd(micros: number): number {
  // Dividing an integer by 1e6 yields the double nearest the exact decimal,
  // which is the same double the decimal's own text parses to.
  return Math.round(micros) / 1e6;
}

/** Formats micro-USD for people: at least 2 and at most 6 decimals, no float artefacts ("12.50", "0.000125"). */
export function formatUsd(micros: number): string {
  // Plain numbers: every amount below 2^53 micros (9 billion USD) divides exactly this way.
  const rounded = Math.round(micros);
  const abs = Math.abs(rounded);
  const fractionMicros = abs % 1_000_000;
  const whole = (abs - fractionMicros) / 1_000_000;
  const fraction = String(fractionMicros).padStart(6, "0").replace(/0{1,4}$/, "");
  return `${rounded < 0 ? "-" : ""}${whole}.${fraction}`;
}
