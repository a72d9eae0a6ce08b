/**
 * Prices: config prices are USD per 1M tokens, so one token at price P costs P
 * micro-USD. Prices and multipliers are turned into exact integers (pico-USD per
 * token, parts per million) and costs computed in BigInt, never in floating point.
 */
import type { GroupConfig, ModelConfig } from "../config/schema.ts";
import type { Usage } from "../usage.ts";

const PICO_PER_MICRO = 1_000_000n;
const PPM = 1_000_000n;

/** A model's prices in pico-USD per token, and the group's multiplier in parts per million. */
export interface Price {
  input: bigint;
  output: bigint;
  cachedInput: bigint;
  cacheWrite: bigint;
  multiplierPpm: bigint;
}

/** Converts a non-negative decimal number to an integer scaled by 10^places, exactly. */
export function scaleDecimal(value: number, places: number): bigint {
  const text = value.toFixed(20).replace(/0+$/, "");
  const [whole = "0", fraction = ""] = text.split(".");
  // toFixed(20) of a short decimal like 0.15 shows binary noise far past 12 places;
  // rounding at `places` recovers the decimal the config author wrote.
  const digits = fraction.padEnd(places + 1, "0");
  const kept = BigInt(whole) * 10n ** BigInt(places) + BigInt(digits.slice(0, places) || "0");
  return Number(digits[places]) >= 5 ? kept + 1n : kept;
}

/** The price of a model in a group, or undefined when the model has no price (free). */
export function priceOf(model: ModelConfig | undefined, group: GroupConfig): Price | undefined {
  if (model?.input_price === undefined && model?.output_price === undefined) return undefined;
  const input = scaleDecimal(model.input_price ?? 0, 6);
  return {
    input,
    output: scaleDecimal(model.output_price ?? 0, 6),
    cachedInput: model.cached_input_price === undefined
      ? input
      : scaleDecimal(model.cached_input_price, 6),
    cacheWrite: model.cache_write_price === undefined
      ? input
      : scaleDecimal(model.cache_write_price, 6),
    multiplierPpm: scaleDecimal(group.price_multiplier, 6),
  };
}

/**
 * `priceOf`, computed once per model and group of a config snapshot (prices are exact
 * BigInt scalings of the config's decimals: not work for every request). Entries go with
 * the snapshot they were computed from.
 */
export function createPriceBook(): (
  model: ModelConfig | undefined,
  group: GroupConfig,
) => Price | undefined {
  const byGroup = new WeakMap<GroupConfig, WeakMap<ModelConfig, Price | undefined>>();
  return (model, group) => {
    if (!model) return undefined;
    let byModel = byGroup.get(group);
    if (!byModel) byGroup.set(group, byModel = new WeakMap());
    if (!byModel.has(model)) byModel.set(model, priceOf(model, group));
    return byModel.get(model);
  };
}

/**
 * Cost in micro-USD, rounded half up, per design.md:
 * ((input - cached - cache_write) x input + cached x cached_input + cache_write x
 * cache_write_price + output x output) x multiplier.
 */
export function costMicros(usage: Usage, price: Price | undefined): number {
  if (!price) return 0;
  const uncached = BigInt(
    Math.max(0, usage.input_tokens - usage.cached_tokens - usage.cache_write_tokens),
  );
  const pico = uncached * price.input +
    BigInt(usage.cached_tokens) * price.cachedInput +
    BigInt(usage.cache_write_tokens) * price.cacheWrite +
    BigInt(usage.output_tokens) * price.output;
  const scaled = pico * price.multiplierPpm;
  const divisor = PICO_PER_MICRO * PPM;
  return Number((scaled + divisor / 2n) / divisor);
}
