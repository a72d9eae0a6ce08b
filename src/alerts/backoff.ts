/**
 * When a failed delivery is tried again (design.md): the first retry within 30 s of the
 * first attempt (25 s, so that the worker's once-a-second look and a slow pass still keep
 * it within 30), each later one after twice the wait before, at most an hour, for 24 hours
 * from the event; then the delivery has `failed`.
 */

/** The wait after the first failed attempt. */
export const FIRST_RETRY_MS = 25_000;
/** The longest wait between two attempts. */
export const MAX_RETRY_MS = 3_600_000;
/** How long an event's delivery is tried. */
export const GIVE_UP_AFTER_MS = 86_400_000;

/**
 * When to try again after `attempts` failed attempts (the latest at `now`) of an event
 * made at `createdAt`; null: never (the delivery has failed).
 */
export function nextAttemptAt(createdAt: number, attempts: number, now: number): number | null {
  const deadline = createdAt + GIVE_UP_AFTER_MS;
  if (now >= deadline) return null;
  const wait = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
  return Math.min(now + wait, deadline);
}
