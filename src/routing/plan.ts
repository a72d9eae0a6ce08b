/**
 * The attempts of one request: its ordered channels handed out one key at a time, with
 * key rotation and failover, and the bound channel key first when the request's
 * conversation has one.
 */
import type { ChannelConfig } from "../config/schema.ts";
import { COOLDOWN_MS, type Health } from "./health.ts";

/** At most this many upstream requests are made for one client request. */
export const MAX_ATTEMPTS = 4;

/** One upstream try: a channel, one of its keys, and the model id it knows. */
export interface Attempt {
  channel: ChannelConfig;
  /** Index into `channel.keys`, or -1 for a channel without keys. */
  keyIndex: number;
  key: string | undefined;
  upstreamModel: string;
}

/** Why an attempt failed, which decides what the plan tries next. */
export type AttemptFailure =
  /** 401/403: the key leaves rotation until the config changes. */
  | "key_rejected"
  /** 429: the key rests until the upstream's `Retry-After`. */
  | "key_limited"
  /** 529, or 503 with `Retry-After`: the channel rests until then (cools, without one). */
  | "channel_overloaded"
  | "channel_failed";

/**
 * Cache affinity's part in a request: `hit` when its conversation was bound and the bound
 * channel key served it; `miss` when it was bound and something else served it (or nothing
 * did); `none` when it was not bound (a new conversation, or affinity off).
 */
export type AffinityResult = "hit" | "miss" | "none";

/** The attempts for one request, handed out one at a time. */
export interface RoutePlan {
  /** The next attempt, or undefined when none is left. */
  next(): Attempt | undefined;
  /** Reports a failed attempt (with the upstream's `Retry-After`), so the plan and health move on. */
  fail(attempt: Attempt, failure: AttemptFailure, retryAfterMs?: number): void;
  /** Reports a served attempt, ending a channel's cool-down (and binding the conversation). */
  succeed(attempt: Attempt): void;
  /** Cache affinity's part so far; final once an attempt succeeded or none is left. */
  affinity(): AffinityResult;
}

/** A usable channel key a conversation is bound to. */
export interface BoundKey {
  channel: ChannelConfig;
  keyIndex: number;
}

/** What a plan knows of the request's conversation. */
export interface PlanAffinity {
  /** The conversation had a binding (usable or not). */
  wasBound: boolean;
  /** The bound channel key, when it is usable: tried first on its channel. */
  bound?: BoundKey;
  /** Binds the conversation to the attempt that served it. */
  bind?(attempt: Attempt): void;
}

/** The key indexes of a channel; -1 stands for a channel without keys. */
export function keyIndexes(channel: ChannelConfig): number[] {
  return channel.keys.length === 0 ? [-1] : channel.keys.map((_, index) => index);
}

/** Not rejected (401/403) and not resting after a 429. */
export function keyUsable(channel: ChannelConfig, index: number, health: Health): boolean {
  return (index < 0 || !health.isKeyRejected(channel.name, index)) &&
    health.keyRestLeft(channel.name, index) === 0;
}

/** The plan over `channels`, in the order given. */
export function createPlan(
  channels: ChannelConfig[],
  health: Health,
  model: string,
  affinity: PlanAffinity = { wasBound: false },
): RoutePlan {
  let attempts = 0;
  let channelIndex = 0;
  let keyOrder: number[] | undefined;
  let result: AffinityResult = affinity.wasBound ? "miss" : "none";
  const { bound } = affinity;

  const keyOrderOf = (channel: ChannelConfig): number[] => {
    if (channel.keys.length === 0) return [-1];
    const count = channel.keys.length;
    // The bound key first, then the others after it; rotation moves on for unbound requests only.
    const start = channel === bound?.channel ? bound.keyIndex : health.nextRotation(channel.name);
    return channel.keys.map((_, i) => (start + i) % count);
  };

  return {
    next() {
      while (attempts < MAX_ATTEMPTS && channelIndex < channels.length) {
        const channel = channels[channelIndex]!;
        keyOrder ??= keyOrderOf(channel);
        const keyIndex = keyOrder.shift();
        if (keyIndex === undefined) {
          channelIndex++;
          keyOrder = undefined;
          continue;
        }
        if (!keyUsable(channel, keyIndex, health)) continue;
        attempts++;
        return {
          channel,
          keyIndex,
          key: keyIndex >= 0 ? channel.keys[keyIndex] : undefined,
          upstreamModel: channel.model_map[model] ?? model,
        };
      }
      return undefined;
    },
    fail(attempt, failure, retryAfterMs) {
      if (failure === "key_rejected" && attempt.keyIndex >= 0) {
        health.rejectKey(attempt.channel.name, attempt.keyIndex);
      }
      if (failure === "key_limited") {
        health.restKey(attempt.channel.name, attempt.keyIndex, retryAfterMs);
      }
      if (failure === "channel_overloaded") {
        // Overloaded with a Retry-After: none of its keys is tried before then.
        if (retryAfterMs === undefined) health.coolChannel(attempt.channel.name, COOLDOWN_MS);
        else {
          for (const index of keyIndexes(attempt.channel)) {
            health.restKey(attempt.channel.name, index, retryAfterMs);
          }
        }
      }
      if (failure === "channel_failed" || failure === "channel_overloaded") {
        health.recordFailure(attempt.channel.name);
        // The channel itself failed: its other keys would fail alike, so move on.
        if (channels[channelIndex] === attempt.channel) {
          channelIndex++;
          keyOrder = undefined;
        }
      }
    },
    succeed(attempt) {
      health.recordSuccess(attempt.channel.name);
      affinity.bind?.(attempt);
      if (affinity.wasBound) {
        const same = attempt.channel === bound?.channel && attempt.keyIndex === bound.keyIndex;
        result = same ? "hit" : "miss";
      }
    },
    affinity: () => result,
  };
}
