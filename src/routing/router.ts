/**
 * Routing: checks that a key may use a model, orders the channels that serve it
 * (priority, then weight) and hands out upstream attempts with key rotation and
 * failover.
 */
import type { ChannelConfig, Config, EntryProtocol } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import type { Principal } from "../auth/principal.ts";
import { buildCatalog, perConfig } from "./catalog.ts";
import { COOLDOWN_MS, createHealth, type Health } from "./health.ts";

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
 * Whether a channel is tried: `up`; `cooling` after repeated failures or an overload (tried
 * after the others); `no_usable_key` while every key is rejected or resting after a 429.
 */
export type ChannelState = "up" | "cooling" | "no_usable_key";

/** The attempts for one request, handed out one at a time. */
export interface RoutePlan {
  /** The next attempt, or undefined when none is left. */
  next(): Attempt | undefined;
  /** Reports a failed attempt (with the upstream's `Retry-After`), so the plan and health move on. */
  fail(attempt: Attempt, failure: AttemptFailure, retryAfterMs?: number): void;
  /** Reports a served attempt, ending a channel's cool-down. */
  succeed(attempt: Attempt): void;
}

/** Resolves models and plans attempts against the current config. */
export interface Router {
  /** Models a key may use, for the model list. */
  modelsFor(config: Config, principal: Principal): string[];
  /** Each channel of the config and whether it is up (a usable key, not cooling down). */
  channelStates(config: Config): { channel: string; up: boolean; state: ChannelState }[];
  /** Checks the key may use `model` and plans its attempts; throws 403/503 GatewayErrors. */
  plan(config: Config, principal: Principal, model: string, entry: EntryProtocol): RoutePlan;
}

/** Builds a router; health state lives per config object, so a reload starts it afresh. */
export function createRouter(options: {
  now: () => number;
  random?: () => number;
}): Router {
  const random = options.random ?? Math.random;
  const catalogOf = perConfig(buildCatalog);
  const healthOf = perConfig(() => createHealth(options.now));

  return {
    channelStates(config) {
      const health = healthOf(config);
      return config.channels.map((channel) => {
        const state = !hasUsableKey(channel, health)
          ? "no_usable_key"
          : health.isCooling(channel.name)
          ? "cooling"
          : "up";
        return { channel: channel.name, up: state === "up", state };
      });
    },

    modelsFor(config, principal) {
      const models = catalogOf(config).modelsOf(principal.group);
      return principal.models ? models.filter((m) => principal.models!.includes(m)) : [...models];
    },

    plan(config, principal, model, entry) {
      if (principal.models && !principal.models.includes(model)) {
        throw new GatewayError(
          403,
          "access_denied",
          `This key may not use model "${model}"; it is restricted to: ${
            principal.models.join(", ")
          }.`,
          { param: "model" },
        );
      }
      const channels = catalogOf(config).channelsFor(principal.group, model);
      if (channels.length === 0) {
        throw new GatewayError(
          503,
          "model_not_found",
          `Model "${model}" is not available to this key's group "${principal.group}". ` +
            "Call GET /v1/models to list the models this key may use.",
          { param: "model" },
        );
      }
      const health = healthOf(config);
      // Every channel of the model serves every entry point: other protocols are translated.
      const usable = channels.filter((channel) => hasUsableKey(channel, health));
      if (usable.length === 0) throw noChannel(model, channels, health);
      return createPlan(orderChannels(usable, entry, health, random), health, model);
    },
  };
}

function noChannel(
  model: string,
  channels: readonly ChannelConfig[],
  health: Health,
): GatewayError {
  // Keys resting after an upstream 429 come back by themselves: say when.
  const rests = channels.flatMap((channel) =>
    keyIndexes(channel)
      .filter((index) => index < 0 || !health.isKeyRejected(channel.name, index))
      .map((index) => health.keyRestLeft(channel.name, index))
  ).filter((left) => left > 0);
  if (rests.length > 0) {
    const seconds = Math.max(1, Math.ceil(Math.min(...rests) / 1000));
    return new GatewayError(
      429,
      "rate_limit_exceeded",
      `The upstream of model "${model}" is rate limiting or overloaded on every channel key. Retry in ${seconds} s.`,
      { headers: { "retry-after": String(seconds) } },
    );
  }
  return new GatewayError(
    503,
    "channel:no_available_key",
    `No usable channel for model "${model}": every channel key was rejected by its upstream. ` +
      "Retry later or ask the operator to fix the channel keys.",
  );
}

/** The key indexes of a channel; -1 stands for a channel without keys. */
function keyIndexes(channel: ChannelConfig): number[] {
  return channel.keys.length === 0 ? [-1] : channel.keys.map((_, index) => index);
}

function hasUsableKey(channel: ChannelConfig, health: Health): boolean {
  // A loop, not keyIndexes().some(): every request asks this of every channel of its model.
  if (channel.keys.length === 0) return keyUsable(channel, -1, health);
  for (let index = 0; index < channel.keys.length; index++) {
    if (keyUsable(channel, index, health)) return true;
  }
  return false;
}

/** Not rejected (401/403) and not resting after a 429. */
function keyUsable(channel: ChannelConfig, index: number, health: Health): boolean {
  return (index < 0 || !health.isKeyRejected(channel.name, index)) &&
    health.keyRestLeft(channel.name, index) === 0;
}

/**
 * Higher priority first; at equal priority the channels that speak the entry point's
 * protocol (no translation) first, each set in a weighted random order; cooling
 * channels last.
 */
function orderChannels(
  channels: readonly ChannelConfig[],
  entry: EntryProtocol,
  health: Health,
  random: () => number,
): ChannelConfig[] {
  // One channel has one order (the usual model; every request orders its channels).
  if (channels.length === 1) return [channels[0]!];
  const byPriority = new Map<number, ChannelConfig[]>();
  for (const channel of channels) {
    byPriority.set(channel.priority, [...(byPriority.get(channel.priority) ?? []), channel]);
  }
  const native = (channel: ChannelConfig) =>
    channel.protocol === entry || channel.protocol === "echo";
  const ordered = [...byPriority.keys()].sort((a, b) => b - a).flatMap((priority) => {
    const group = byPriority.get(priority)!;
    return [
      ...weightedShuffle(group.filter(native), random),
      ...weightedShuffle(group.filter((channel) => !native(channel)), random),
    ];
  });
  return [
    ...ordered.filter((c) => !health.isCooling(c.name)),
    ...ordered.filter((c) => health.isCooling(c.name)),
  ];
}

function weightedShuffle(channels: ChannelConfig[], random: () => number): ChannelConfig[] {
  const pool = [...channels];
  const result: ChannelConfig[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((sum, c) => sum + c.weight, 0);
    let pick = random() * total;
    let index = pool.findIndex((c) => (pick -= c.weight) < 0);
    if (index < 0) index = pool.length - 1;
    result.push(...pool.splice(index, 1));
  }
  return result;
}

function createPlan(channels: ChannelConfig[], health: Health, model: string): RoutePlan {
  let attempts = 0;
  let channelIndex = 0;
  let keyOrder: number[] | undefined;

  const keyOrderOf = (channel: ChannelConfig): number[] => {
    if (channel.keys.length === 0) return [-1];
    const start = health.nextRotation(channel.name);
    return channel.keys.map((_, i) => (start + i) % channel.keys.length);
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
    },
  };
}
