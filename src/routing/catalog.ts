/**
 * Which models a group may use, which channels serve them, and the chain of models a
 * request for one may be served by (itself, then its fallbacks), derived once per config.
 */
import type { ChannelConfig, Config } from "../config/schema.ts";

/** The channels of one config indexed by group and model. */
export interface Catalog {
  /** Whether `group` lets its keys ask for `model` (its `models` list, or "*"). */
  allows(group: string, model: string): boolean;
  /**
   * Channels serving `model` to `group`, in config order, whether or not the group lists
   * the model: a fallback serves a model the group allows under another name.
   */
  channelsFor(group: string, model: string): readonly ChannelConfig[];
  /**
   * The models a request for `model` may be served by, in the order tried: the model
   * itself when a channel serves it, then each fallback's chain in turn, each model once.
   */
  chainOf(model: string): readonly string[];
  /** Every model `group` may ask for whose chain has a channel for the group, sorted. */
  modelsOf(group: string): readonly string[];
}

/** Builds the catalog of a config; callers memoize it per config object. */
export function buildCatalog(config: Config): Catalog {
  const byGroupModel = new Map<string, ChannelConfig[]>();
  const served = new Set<string>();
  for (const channel of config.channels) {
    for (const model of channel.models) {
      served.add(model);
      for (const group of channel.groups) {
        const key = `${group}\u0000${model}`;
        byGroupModel.set(key, [...byGroupModel.get(key) ?? [], channel]);
      }
    }
  }
  const chains = new Map<string, string[]>();
  const chainOf = (model: string): string[] => {
    let chain = chains.get(model);
    if (!chain) {
      chain = [];
      const seen = new Set<string>();
      const walk = (name: string) => {
        if (seen.has(name)) return;
        seen.add(name);
        if (served.has(name)) chain!.push(name);
        for (const fallback of config.models[name]?.fallbacks ?? []) walk(fallback);
      };
      walk(model);
      chains.set(model, chain);
    }
    return chain;
  };
  const allows = (group: string, model: string) => {
    const models = config.groups[group]?.models;
    return models !== undefined && (models.includes("*") || models.includes(model));
  };
  const channelsFor = (group: string, model: string) =>
    byGroupModel.get(`${group}\u0000${model}`) ?? [];
  const aliases = Object.entries(config.models)
    .filter(([name, model]) => (model.fallbacks?.length ?? 0) > 0 && !served.has(name))
    .map(([name]) => name);
  const modelsByGroup = new Map<string, string[]>();
  for (const group of Object.keys(config.groups)) {
    const models = [...served, ...aliases].filter((model) =>
      allows(group, model) && chainOf(model).some((hop) => channelsFor(group, hop).length > 0)
    );
    modelsByGroup.set(group, models.sort());
  }
  return {
    allows,
    channelsFor,
    chainOf,
    modelsOf: (group) => modelsByGroup.get(group) ?? [],
  };
}
