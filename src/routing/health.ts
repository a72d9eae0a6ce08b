/**
 * Channel and channel-key health for one config: keys an upstream rejected
 * (401/403) leave rotation until the config changes; a channel that keeps failing
 * cools down and is tried last.
 */

/** Consecutive failures after which a channel cools down. */
export const COOLDOWN_AFTER_FAILURES = 3;
/** How long a failing channel is tried only after the others. */
export const COOLDOWN_MS = 30_000;

/** Mutable health of the channels of one config snapshot. */
export interface Health {
  isKeyRejected(channel: string, keyIndex: number): boolean;
  rejectKey(channel: string, keyIndex: number): void;
  isCooling(channel: string): boolean;
  recordFailure(channel: string): void;
  recordSuccess(channel: string): void;
  /** The next rotation start for a channel's keys. */
  nextRotation(channel: string): number;
}

/** Fresh health state: every key usable, no channel cooling. */
export function createHealth(now: () => number): Health {
  const rejected = new Set<string>();
  const failures = new Map<string, number>();
  const coolingUntil = new Map<string, number>();
  const rotation = new Map<string, number>();
  return {
    isKeyRejected: (channel, keyIndex) => rejected.has(`${channel}\u0000${keyIndex}`),
    rejectKey: (channel, keyIndex) => void rejected.add(`${channel}\u0000${keyIndex}`),
    isCooling: (channel) => (coolingUntil.get(channel) ?? 0) > now(),
    recordFailure(channel) {
      const count = (failures.get(channel) ?? 0) + 1;
      failures.set(channel, count);
      if (count >= COOLDOWN_AFTER_FAILURES) coolingUntil.set(channel, now() + COOLDOWN_MS);
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
