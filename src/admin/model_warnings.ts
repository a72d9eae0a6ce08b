/**
 * Warnings about a key's model restriction: a model that no channel of the config serves
 * and no alias names cannot be used through the key (a typo, most often). The key is
 * still made or changed (the config may gain the model later); the admin API answers the
 * warnings in `warnings`, the CLI prints them on stderr and the dashboard on the page.
 */
import type { Config } from "../config/schema.ts";

/** The models a key may name and use: those a channel serves, and aliases (a chain of fallbacks). */
export function knownModels(config: Config): string[] {
  const known = new Set(config.channels.flatMap((channel) => channel.models));
  for (const [name, model] of Object.entries(config.models)) {
    if ((model.fallbacks?.length ?? 0) > 0) known.add(name);
  }
  return [...known].sort();
}

/** One warning for each of `models` that the config does not know, with the likely one meant. */
export function modelWarnings(
  config: Config,
  models: readonly string[] | null | undefined,
  configPath?: string,
): string[] {
  if (!models) return [];
  const known = knownModels(config);
  const where = configPath ? `"${configPath}"` : "the config";
  return models.filter((model) => !known.includes(model)).map((model) => {
    const near = known.find((name) => editDistance(name, model) <= 2);
    return `Model "${model}" is unknown: no channel in ${where} serves it and no alias names ` +
      `it, so the key cannot use it` + (near ? `; did you mean "${near}"?` : ".");
  });
}

/** The Levenshtein distance of two short names (a model's). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = row;
  }
  return previous[b.length]!;
}
