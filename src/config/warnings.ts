/** What a valid config may still get wrong: said as warnings, since serving it works. */
import type { Config } from "./schema.ts";

/**
 * One line per model that a channel serves with no price (`input_price` or `output_price`
 * missing under `[models."id"]`): its requests would cost nothing, which is rarely meant.
 * Models only the built-in echo channel serves are left out: echo calls no upstream.
 */
export function configWarnings(config: Config): string[] {
  const served = new Map<string, string[]>();
  for (const channel of config.channels) {
    if (channel.protocol === "echo") continue;
    for (const model of channel.models) {
      served.set(model, [...served.get(model) ?? [], channel.name]);
    }
  }
  const warnings: string[] = [];
  for (const [model, channels] of served) {
    const prices = Object.hasOwn(config.models, model) ? config.models[model] : undefined;
    const missing = (["input_price", "output_price"] as const).filter((key) =>
      prices?.[key] === undefined
    );
    if (missing.length === 0) continue;
    const by = channels.map((name) => `"${name}"`).join(", ");
    warnings.push(
      `model "${model}" (channel ${by}) has no ${missing.join(" or ")}: its requests cost ` +
        `nothing; set ${missing.join(" and ")} under [models.${JSON.stringify(model)}]`,
    );
  }
  return warnings;
}
