/**
 * The attempts of one request: the models of its chain (the model asked, then its
 * fallbacks), each with its ordered channels handed out one key at a time, with key
 * rotation and failover, and the bound channel key first when the request's conversation
 * has one. Retries of one attempt and the count of attempts are the relay's.
 */
import type { ChannelConfig } from "../config/schema.ts";
import type { Health } from "./health.ts";

/** One upstream try: a channel, one of its keys, and the model it is asked for. */
export interface Attempt {
  channel: ChannelConfig;
  /** Index into `channel.keys`, or -1 for a channel without keys. */
  keyIndex: number;
  key: string | undefined;
  /** The model as the config names it: the one asked, or a fallback of its chain. */
  model: string;
  /** The model id the channel knows (after `model_map`). */
  upstreamModel: string;
}

/** One model of a request's chain and the channels that serve it, in the order tried. */
export interface Hop {
  model: string;
  channels: ChannelConfig[];
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
  /** The models of the chain, in the order they are tried. */
  readonly models: readonly string[];
  /** The next attempt, or undefined when none is left. */
  next(): Attempt | undefined;
  /** Reports a failed attempt (with the upstream's `Retry-After`), so the plan and health move on. */
  fail(attempt: Attempt, failure: AttemptFailure, retryAfterMs?: number): void;
  /** Reports a failure the relay tries again on the same attempt: health counts it, the plan stays. */
  failOnce(attempt: Attempt): void;
  /** Reports a served attempt, ending a channel's cool-down (and binding the conversation). */
  succeed(attempt: Attempt): void;
  /** An attempt that ended neither way (the client left): a probe it made is let go. */
  release(attempt: Attempt): void;
  /** Leaves out, from now on, the models `keep` refuses (a context window too small). */
  keepModels(keep: (model: string) => boolean): void;
  /** Moves on to the next model of the chain, whatever channels of this one are left. */
  skipModel(): void;
  /**
   * The attempts that may continue `served`'s answer, in the order a rescue tries them:
   * its model's other channels, then its own channel, then the later models' channels;
   * each with a usable key, and only where `accepts` says the channel takes a prefill.
   */
  rescues(served: Attempt, accepts: (channel: ChannelConfig, model: string) => boolean): Attempt[];
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

/** The plan over `hops`, in the order given; `hops` is the plan's own from now on. */
export function createPlan(
  hops: Hop[],
  health: Health,
  affinity: PlanAffinity = { wasBound: false },
): RoutePlan {
  let hopIndex = 0;
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
  const attemptOn = (channel: ChannelConfig, keyIndex: number, model: string): Attempt => ({
    channel,
    keyIndex,
    key: keyIndex >= 0 ? channel.keys[keyIndex] : undefined,
    model,
    upstreamModel: channel.model_map[model] ?? model,
  });
  const moveTo = (hop: number, channel: number) => {
    hopIndex = hop;
    channelIndex = channel;
    keyOrder = undefined;
  };

  return {
    get models() {
      return hops.map((hop) => hop.model);
    },
    next() {
      while (hopIndex < hops.length) {
        const { channels, model } = hops[hopIndex]!;
        const channel = channels[channelIndex];
        if (!channel) {
          moveTo(hopIndex + 1, 0);
          continue;
        }
        if (keyOrder === undefined) {
          // A channel whose cool-down is over is probed by the first request to reach it.
          health.admit(channel.name);
          keyOrder = keyOrderOf(channel);
        }
        const keyIndex = keyOrder.shift();
        if (keyIndex === undefined) {
          moveTo(hopIndex, channelIndex + 1);
          continue;
        }
        if (keyUsable(channel, keyIndex, health)) return attemptOn(channel, keyIndex, model);
      }
      return undefined;
    },
    fail(attempt, failure, retryAfterMs) {
      const name = attempt.channel.name;
      if (failure === "key_rejected" && attempt.keyIndex >= 0) {
        health.rejectKey(name, attempt.keyIndex);
      }
      if (failure === "key_limited") health.restKey(name, attempt.keyIndex, retryAfterMs);
      if (failure === "channel_overloaded") {
        // Overloaded with a Retry-After: none of its keys is tried before then.
        if (retryAfterMs === undefined) health.coolChannel(name);
        else {
          for (const index of keyIndexes(attempt.channel)) {
            health.restKey(name, index, retryAfterMs);
          }
        }
      }
      if (failure === "channel_failed" || failure === "channel_overloaded") {
        health.recordFailure(name);
        // The channel itself failed: its other keys would fail alike, so move on.
        if (hops[hopIndex]?.channels[channelIndex] === attempt.channel) {
          moveTo(hopIndex, channelIndex + 1);
        }
      } else health.releaseProbe(name);
    },
    failOnce(attempt) {
      health.recordFailure(attempt.channel.name);
    },
    succeed(attempt) {
      health.recordSuccess(attempt.channel.name);
      affinity.bind?.(attempt);
      if (affinity.wasBound) {
        const same = attempt.channel === bound?.channel && attempt.keyIndex === bound.keyIndex;
        result = same ? "hit" : "miss";
      }
    },
    release(attempt) {
      health.releaseProbe(attempt.channel.name);
    },
    keepModels(keep) {
      const current = hops[hopIndex];
      hops = hops.filter((hop, index) => index < hopIndex || keep(hop.model));
      if (current && hops[hopIndex] !== current) moveTo(hopIndex, 0);
    },
    skipModel() {
      moveTo(hopIndex + 1, 0);
    },
    rescues(served, accepts) {
      const at = hops.findIndex((hop) => hop.model === served.model);
      if (at < 0) return [];
      const candidates: [ChannelConfig, string][] = [
        ...hops[at]!.channels.filter((channel) => channel !== served.channel)
          .map((channel): [ChannelConfig, string] => [channel, served.model]),
        [served.channel, served.model],
        ...hops.slice(at + 1).flatMap((hop) =>
          hop.channels.map((channel): [ChannelConfig, string] => [channel, hop.model])
        ),
      ];
      return candidates.flatMap(([channel, model]) => {
        if (!accepts(channel, model) || health.isCooling(channel.name)) return [];
        const keyIndex = keyIndexes(channel).find((index) => keyUsable(channel, index, health));
        return keyIndex === undefined ? [] : [attemptOn(channel, keyIndex, model)];
      });
    },
    affinity: () => result,
  };
}
