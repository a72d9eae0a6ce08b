/** Tolerant readers for upstream JSON, which may lack or mistype any field. */

/** The value as a plain object, or undefined when it is not one. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** A token count: a finite non-negative number, else 0. */
export function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** Parses an SSE data string that should hold JSON; undefined for `[DONE]` or garbage. */
export function parseEventData(data: string): Record<string, unknown> | undefined {
  try {
    return asRecord(JSON.parse(data));
  } catch {
    return undefined;
  }
}

/** The value as an object to read fields from; `{}` when it is not one. */
export function fields(value: unknown): Record<string, unknown> {
  return asRecord(value) ?? {};
}

/** The value if it is a string, else "". */
export function stringOr(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The value if it is an array, else an empty one. */
export function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * Reads the string values of the named keys, at any depth, out of a JSON text without
 * parsing it: joined in order, unescaped. A relay reads the produced text of every
 * event it passes on, and a parse per event costs four times this scan and leaves its
 * object tree behind as garbage. A JSON key is the only place `"name":` can occur
 * outside a string (a quote inside a string is escaped), so nothing else matches.
 */
export function keyedStrings(keys: readonly string[]): (json: string) => string {
  const pattern = new RegExp(`"(?:${keys.join("|")})"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`, "g");
  return (json) => {
    let text = "";
    pattern.lastIndex = 0;
    for (let match; (match = pattern.exec(json)) !== null;) text += unescaped(match[1]!);
    return text;
  };
}

/** A JSON string literal's content, its escapes resolved (as it was if they are malformed). */
export function unescaped(literal: string): string {
  if (!literal.includes("\\")) return literal;
  try {
    return JSON.parse(`"${literal}"`);
  } catch {
    return literal;
  }
}
