/**
 * Channel and channel-key health for one config: keys an upstream rejected
 * (401/403) leave rotation until the config changes; keys an upstream rate-limited
 * (429) rest until its `Retry-After`; a channel that keeps failing, or says it is
 * overloaded (529, 503 with `Retry-After`), cools down and is tried last until then.
 * When its cool-down is over, one request probes it (half-open): the others keep trying
 * it last until the probe has answered, and a failed probe cools it down again.
 */

/** Consecutive failures after which a channel cools down. */
export const COOLDOWN_AFTER_FAILURES = 3;
/** How long a rate-limited key rests when its upstream gave no `Retry-After`. */
export const DEFAULT_KEY_REST_MS = 5_000;

/**
 * Where a channel stands: `up`; `failing` after a failure with fewer than enough in a row to
 * cool it down; `cooling` until its cool-down ends; `probing` while the one request allowed
 * through after it has not answered.
 */
export type ChannelHealthState = "up" | "failing" | "cooling" | "probing";

/** Mutable health of the channels of one config snapshot. */
export interface Health {
  isKeyRejected(channel: string, keyIndex: number): boolean;
  rejectKey(channel: string, keyIndex: number): void;
  /** Milliseconds until a rate-limited key may be tried again (0: now). */
  keyRestLeft(channel: string, keyIndex: number): number;
  /** Rests a key for `ms` (its upstream's `Retry-After`, or the default). */
  restKey(channel: string, keyIndex: number, ms?: number): void;
  /** Whether a channel is tried only after the others: cooling, or probed by another request. */
  isCooling(channel: string): boolean;
  /** The channel's state, as the admin API and metrics show it. */
  stateOf(channel: string): ChannelHealthState;
  /** When the channel's cool-down ends (ended, while its probe is awaited); undefined if none. */
  coolingUntil(channel: string): number | undefined;
  /**
   * Whether this request may send to `channel` now: always, unless its cool-down ended and
   * it awaits its probe; then the first asker becomes the probe (true) and the others wait.
   */
  admit(channel: string): boolean;
  /** Cools a channel at once, for `ms` or its cool-down (its upstream said it is overloaded). */
  coolChannel(channel: string, ms?: number): void;
  recordFailure(channel: string): void;
  recordSuccess(channel: string): void;
  /** The probe's request ended without an answer either way: the next request probes. */
  releaseProbe(channel: string): void;
  /** The next rotation start for a channel's keys. */
  nextRotation(channel: string): number;
}

/**
 * Told when a channel starts cooling down (`down`) and when a request succeeds on it again
 * after (`up`): what alerts/ turns into channel incidents.
 */
export type ChannelHealthListener = (
  channel: string,
  state: "down" | "up",
  reason: string,
) => void;

/** What a channel's cool-down is: its length, and when the probe after it began. */
interface Cooling {
  until: number;
  /** Set while one request probes the channel; a probe lost for a whole cool-down lapses. */
  probeSince?: number;
}

/** Fresh health state: every key usable, no channel cooling. */
export function createHealth(
  now: () => number,
  cooldownMs: number,
  listener?: ChannelHealthListener,
): Health {
  const rejected = new Set<string>();
  const restingUntil = new Map<string, number>();
  const failures = new Map<string, number>();
  const cooling = new Map<string, Cooling>();
  const rotation = new Map<string, number>();
  const keyOf = (channel: string, keyIndex: number) => `${channel}\u0000${keyIndex}`;
  const cool = (channel: string, until: number) => {
    const current = cooling.get(channel);
    cooling.set(channel, { until: Math.max(until, current?.until ?? 0) });
  };
  /** Whether a probe of the channel is under way (and not lost). */
  const probing = (state: Cooling) =>
    state.probeSince !== undefined && now() - state.probeSince < cooldownMs;
  const stateOf = (channel: string): ChannelHealthState => {
    const state = cooling.size > 0 ? cooling.get(channel) : undefined;
    if (state) {
      if (state.until > now()) return "cooling";
      return probing(state) ? "probing" : "cooling";
    }
    return (failures.get(channel) ?? 0) > 0 ? "failing" : "up";
  };
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
    isCooling(channel) {
      if (cooling.size === 0) return false;
      const state = cooling.get(channel);
      return state !== undefined && (state.until > now() || probing(state));
    },
    stateOf,
    coolingUntil: (channel) => cooling.size > 0 ? cooling.get(channel)?.until : undefined,
    admit(channel) {
      const state = cooling.size > 0 ? cooling.get(channel) : undefined;
      if (!state) return true;
      if (state.until > now() || probing(state)) return false;
      state.probeSince = now();
      return true;
    },
    coolChannel(channel, ms = cooldownMs) {
      if (listener && !cooling.has(channel)) {
        listener(channel, "down", "The upstream said it is overloaded.");
      }
      cool(channel, now() + ms);
    },
    recordFailure(channel) {
      const count = (failures.get(channel) ?? 0) + 1;
      failures.set(channel, count);
      // A failed probe cools the channel again at once.
      if (count >= COOLDOWN_AFTER_FAILURES || cooling.has(channel)) {
        if (listener && !cooling.has(channel)) {
          listener(channel, "down", `It failed ${count} times in a row.`);
        }
        cooling.delete(channel);
        cool(channel, now() + cooldownMs);
      }
    },
    recordSuccess(channel) {
      failures.delete(channel);
      if (cooling.size > 0 && cooling.delete(channel)) {
        listener?.(channel, "up", "A request succeeded after its cool-down.");
      }
    },
    releaseProbe(channel) {
      const state = cooling.get(channel);
      if (state) delete state.probeSince;
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
