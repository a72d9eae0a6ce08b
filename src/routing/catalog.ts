/** Which models a group may use and which channels serve them, derived once per config. */
import type { ChannelConfig, Config } from "../config/schema.ts";

/** The channels of one config indexed by group and model. */
export interface Catalog {
  /** Channels serving `model` to `group`, in config order. */
  channelsFor(group: string, model: string): readonly ChannelConfig[];
  /** Every model `group` may use that has at least one channel, sorted. */
  modelsOf(group: string): readonly string[];
}

/** Builds the catalog of a config; callers memoize it per config object. */
export function buildCatalog(config: Config): Catalog {
  const byGroupModel = new Map<string, ChannelConfig[]>();
  const modelsByGroup = new Map<string, string[]>();
  for (const [groupName, group] of Object.entries(config.groups)) {
    const allowsAll = group.models.includes("*");
    const allowed = new Set(group.models);
    const models = new Set<string>();
    for (const channel of config.channels) {
      if (!channel.groups.includes(groupName)) continue;
      for (const model of channel.models) {
        if (!allowsAll && !allowed.has(model)) continue;
        models.add(model);
        const key = `${groupName}\u0000${model}`;
        const list = byGroupModel.get(key) ?? [];
        list.push(channel);
        byGroupModel.set(key, list);
      }
    }
    modelsByGroup.set(groupName, [...models].sort());
  }
  return {
    channelsFor: (group, model) => byGroupModel.get(`${group}\u0000${model}`) ?? [],
    modelsOf: (group) => modelsByGroup.get(group) ?? [],
  };
}

/** Memoizes a derivation per config object, so a reload derives afresh and nothing else does. */
export function perConfig<T>(derive: (config: Config) => T): (config: Config) => T {
  const cache = new WeakMap<Config, T>();
  return (config) => {
    let value = cache.get(config);
    if (value === undefined) {
      value = derive(config);
      cache.set(config, value);
    }
    return value;
  };
}
