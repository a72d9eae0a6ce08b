/**
 * Ids that sort by the time they were made: a prefix, the time in 12 hex digits, then 20
 * random ones. A table keyed by them grows at the end of its index, where random ids
 * would change a page anywhere in it for each row (bench/README.md, "Stored responses").
 */

/** `prefix`, the time `now` (ms since the epoch) in 12 hex digits, then 20 random ones. */
export function orderedId(prefix: string, now: number = Date.now()): string {
  // A UUID's first 8 and last 12 hex digits are random (its version and variant sit between).
  const uuid = crypto.randomUUID();
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, "0");
  return `${prefix}${time}${uuid.slice(0, 8)}${uuid.slice(24)}`;
}
