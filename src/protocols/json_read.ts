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
