/**
 * Routing: checks that a key may use a model, resolves it into its chain (the model, then
 * its fallbacks; an alias is its fallbacks alone), orders the channels of each (priority,
 * then weight) and hands out upstream attempts with key rotation and failover. With cache
 * affinity on, a conversation goes first to the channel key that last served it, ahead of
 * the others of its priority (never ahead of a higher one).
 */
import type { ChannelConfig, Config } from "../config/schema.ts";
import type { Protocol } from "../protocols/index.ts";
import { GatewayError } from "../errors.ts";
import type { Principal } from "../auth/principal.ts";
import { type AffinityTable, type Binding, createAffinityTable } from "./affinity.ts";
import { buildCatalog } from "./catalog.ts";
import { answersIn } from "./transport.ts";
import {
  type ChannelHealthListener,
  type ChannelHealthState,
  createHealth,
  type Health,
} from "./health.ts";
import {
  type BoundKey,
  createPlan,
  type Hop,
  keyIndexes,
  keyUsable,
  type PlanAffinity,
  type RoutePlan,
} from "./plan.ts";
import { perConfig } from "../config/per_config.ts";
export { type AffinityResult, type Attempt, type AttemptFailure, type RoutePlan } from "./plan.ts";

/**
 * Whether a channel is tried: `up`; `failing` after a recent failure; `cooling` after
 * repeated failures or an overload (tried after the others); `probing` while one request
 * tries it after its cool-down; `no_usable_key` while every key is rejected or resting.
 */
export type ChannelState = ChannelHealthState | "no_usable_key";

/** Resolves models and plans attempts against the current config. */
export interface Router {
  /** Models a key may use, for the model list. */
  modelsFor(config: Config, principal: Principal): string[];
  /**
   * Each channel of the config and whether it is up (a usable key, not cooling down), with
   * the end of its cool-down when it has one.
   */
  channelStates(
    config: Config,
  ): { channel: string; up: boolean; state: ChannelState; coolingUntil?: number }[];
  /**
   * Checks the key may use `model` and plans its attempts; throws 403/503 GatewayErrors.
   * With a `conversation` name (conversation.ts), the plan follows and keeps its binding.
   */
  plan(
    config: Config,
    principal: Principal,
    model: string,
    entry: Protocol,
    conversation?: string,
  ): RoutePlan;
}

/**
 * Builds a router. Health state lives per config object, so a reload starts it afresh;
 * the conversations' bindings outlive reloads and are checked against each new config.
 */
export function createRouter(options: {
  now: () => number;
  random?: () => number;
  /** The most conversations bound at once (affinity.ts). */
  affinityCapacity?: number;
  /** Told when a channel cools down and when it recovers (health.ts). */
  onChannelHealth?: ChannelHealthListener;
}): Router {
  const random = options.random ?? Math.random;
  const catalogOf = perConfig(buildCatalog);
  const healthOf = perConfig((config) =>
    createHealth(options.now, config.failover.cooldown_ms, options.onChannelHealth)
  );
  const bindings = createAffinityTable({ now: options.now, capacity: options.affinityCapacity });

  return {
    channelStates(config) {
      const health = healthOf(config);
      return config.channels.map((channel) => {
        const state = hasUsableKey(channel, health)
          ? health.stateOf(channel.name)
          : "no_usable_key";
        const up = state === "up" || state === "failing";
        const coolingUntil = health.coolingUntil(channel.name);
        return { channel: channel.name, up, state, ...coolingUntil && { coolingUntil } };
      });
    },

    modelsFor(config, principal) {
      const models = catalogOf(config).modelsOf(principal.group);
      return principal.models ? models.filter((m) => principal.models!.includes(m)) : [...models];
    },

    plan(config, principal, model, entry, conversation) {
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
      const catalog = catalogOf(config);
      const { group } = principal;
      const chain = catalog.allows(group, model)
        ? catalog.chainOf(model).map((hop) => ({
          model: hop,
          channels: catalog.channelsFor(group, hop),
        }))
          .filter((hop) => hop.channels.length > 0)
        : [];
      if (chain.length === 0) {
        throw new GatewayError(
          503,
          "model_not_found",
          `Model "${model}" is not available to this key's group "${group}". ` +
            "Call GET /v1/models to list the models this key may use.",
          { param: "model" },
        );
      }
      const health = healthOf(config);
      // Every channel of a model serves every entry point: other protocols are translated.
      const hops: Hop[] = chain.map((hop) => ({
        model: hop.model,
        channels: hop.channels.filter((channel) => hasUsableKey(channel, health)),
      })).filter((hop) => hop.channels.length > 0);
      if (hops.length === 0) throw noChannel(model, chain.flatMap((hop) => hop.channels), health);
      const first = hops[0]!;
      const affinity = conversation !== undefined && config.routing.cache_affinity
        ? planAffinity(bindings, config, `${model}\u0000${conversation}`, first.channels, health)
        : undefined;
      const bound = affinity?.bound?.channel;
      return createPlan(
        hops.map((hop, index) => ({
          model: hop.model,
          channels: orderChannels(
            hop.channels,
            entry,
            health,
            random,
            index === 0 ? bound : undefined,
          ),
        })),
        health,
        affinity,
      );
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

/**
 * A conversation's binding for a plan. It holds while its channel is still in the config,
 * serves the model to the key's group (`usable` says both) and is not cooling down, and
 * its key is still listed, not rejected and not resting. One table serves every model of
 * a conversation (`slot` names both): a conversation that moves between models, as Claude
 * Code's small requests do, keeps a binding for each.
 */
function planAffinity(
  bindings: AffinityTable,
  config: Config,
  slot: string,
  usable: readonly ChannelConfig[],
  health: Health,
): PlanAffinity {
  const ttlMs = config.routing.affinity_ttl_s * 1000;
  const binding = bindings.find(slot, ttlMs);
  const bind = (attempt: { channel: ChannelConfig; key: string | undefined }) =>
    bindings.bind(slot, { channel: attempt.channel.name, key: attempt.key }, ttlMs);
  if (!binding) return { wasBound: false, bind };
  const bound = boundKey(binding, usable, health);
  return bound ? { wasBound: true, bound, bind } : { wasBound: true, bind };
}

function boundKey(
  binding: Binding,
  usable: readonly ChannelConfig[],
  health: Health,
): BoundKey | undefined {
  const channel = usable.find((candidate) => candidate.name === binding.channel);
  if (!channel || health.isCooling(channel.name)) return undefined;
  const keyIndex = binding.key === undefined ? -1 : channel.keys.indexOf(binding.key);
  if (keyIndex < 0 && channel.keys.length > 0) return undefined;
  return keyUsable(channel, keyIndex, health) ? { channel, keyIndex } : undefined;
}

function hasUsableKey(channel: ChannelConfig, health: Health): boolean {
  // A loop, not keyIndexes().some(): every request asks this of every channel of its model.
  if (channel.keys.length === 0) return keyUsable(channel, -1, health);
  for (let index = 0; index < channel.keys.length; index++) {
    if (keyUsable(channel, index, health)) return true;
  }
  return false;
}

/**
 * Higher priority first; at equal priority the bound channel first (its prompt cache is
 * worth more than avoiding a translation), then the channels that speak the entry
 * point's protocol (no translation), each set in a weighted random order; cooling
 * channels last.
 */
function orderChannels(
  channels: readonly ChannelConfig[],
  entry: Protocol,
  health: Health,
  random: () => number,
  bound?: ChannelConfig,
): ChannelConfig[] {
  // One channel has one order (the usual model; every request orders its channels).
  if (channels.length === 1) return [channels[0]!];
  const byPriority = new Map<number, ChannelConfig[]>();
  for (const channel of channels) {
    if (channel === bound) continue;
    byPriority.set(channel.priority, [...(byPriority.get(channel.priority) ?? []), channel]);
  }
  if (bound && !byPriority.has(bound.priority)) byPriority.set(bound.priority, []);
  const native = (channel: ChannelConfig) => answersIn(channel, entry) === entry;
  const ordered = [...byPriority.keys()].sort((a, b) => b - a).flatMap((priority) => {
    const group = byPriority.get(priority)!;
    return [
      ...(bound?.priority === priority ? [bound] : []),
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
