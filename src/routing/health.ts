/**
 * Channel and channel-key health for one config: keys an upstream rejected
 * (401/403) leave rotation until the config changes; keys an upstream rate-limited
 * (429) rest until its `Retry-After`; a channel that keeps failing, or says it is
 * overloaded (529, 503 with `Retry-After`), cools down and is tried last until then.
 */

/** Consecutive failures after which a channel cools down. */
export const COOLDOWN_AFTER_FAILURES = 3;
/** How long a failing channel is tried only after the others. */
export const COOLDOWN_MS = 30_000;
/** How long a rate-limited key rests when its upstream gave no `Retry-After`. */
export const DEFAULT_KEY_REST_MS = 5_000;

/** Mutable health of the channels of one config snapshot. */
export interface Health {
  isKeyRejected(channel: string, keyIndex: number): boolean;
  rejectKey(channel: string, keyIndex: number): void;
  /** Milliseconds until a rate-limited key may be tried again (0: now). */
  keyRestLeft(channel: string, keyIndex: number): number;
  /** Rests a key for `ms` (its upstream's `Retry-After`, or the default). */
  restKey(channel: string, keyIndex: number, ms?: number): void;
  isCooling(channel: string): boolean;
  /** Cools a channel for `ms` at once (its upstream said it is overloaded). */
  coolChannel(channel: string, ms: number): void;
  recordFailure(channel: string): void;
  recordSuccess(channel: string): void;
  /** The next rotation start for a channel's keys. */
  nextRotation(channel: string): number;
}

/** Fresh health state: every key usable, no channel cooling. */
export function createHealth(now: () => number): Health {
  const rejected = new Set<string>();
  const restingUntil = new Map<string, number>();
  const failures = new Map<string, number>();
  const coolingUntil = new Map<string, number>();
  const rotation = new Map<string, number>();
  const keyOf = (channel: string, keyIndex: number) => `${channel}\u0000${keyIndex}`;
  const cool = (channel: string, until: number) =>
    coolingUntil.set(channel, Math.max(until, coolingUntil.get(channel) ?? 0));
  // Every request asks after its keys, and nearly always no key is rejected or resting:
  // an empty set answers without the lookup key's string being made and hashed.
  return {
    isKeyRejected: (channel, keyIndex) =>
      rejected.size > 0 && rejected.has(keyOf(channel, keyIndex)),
    rejectKey: (channel, keyIndex) => void rejected.add(keyOf(channel, keyIndex)),
    keyRestLeft(channel, keyIndex) {
      if (restingUntil.size === 0) return 0;
      const key = keyOf(channel, keyIndex);
      const left = (restingUntil.get(key) ?? 0) - now();
      if (left > 0) return left;
      restingUntil.delete(key);
      return 0;
    },
    restKey(channel, keyIndex, ms = DEFAULT_KEY_REST_MS) {
      restingUntil.set(keyOf(channel, keyIndex), now() + ms);
    },
    isCooling: (channel) => (coolingUntil.get(channel) ?? 0) > now(),
    coolChannel: (channel, ms) => void cool(channel, now() + ms),
    recordFailure(channel) {
      const count = (failures.get(channel) ?? 0) + 1;
      failures.set(channel, count);
      if (count >= COOLDOWN_AFTER_FAILURES) cool(channel, now() + COOLDOWN_MS);
    },
    recordSuccess(channel) {
      failures.delete(channel);
      coolingUntil.delete(channel);
    },
    nextRotation(channel) {
      const next = rotation.get(channel) ?? 0;
      rotation.set(channel, next + 1);
      return next;
    },
  };
}

/** Milliseconds an HTTP `Retry-After` value (seconds, or a date) asks to wait; undefined if unreadable. */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}
