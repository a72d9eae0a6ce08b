/** Derivations of a config, made once per config object. */
import type { Config } from "./schema.ts";

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
