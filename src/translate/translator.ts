/**
 * A request's translator: the translation toward each upstream protocol the request's
 * channels speak, passed through for the client's own (passthrough.ts), translated
 * through the IR for another (translated.ts).
 */
import type { EntryProtocol } from "../config/schema.ts";
import { passthrough } from "./passthrough.ts";
import { translated } from "./translated.ts";
import type { Translation, TranslatorOptions } from "./translation.ts";

/** Hands out the translation toward each upstream protocol, built once per protocol. */
export interface Translator {
  toward(upstream: EntryProtocol): Translation;
}

/** A translator for one request. */
export function createTranslator(options: TranslatorOptions): Translator {
  const built = new Map<EntryProtocol, Translation>();
  return {
    toward(upstream) {
      let translation = built.get(upstream);
      if (!translation) {
        translation = upstream === options.entry
          ? passthrough(options)
          : translated(options, upstream);
        built.set(upstream, translation);
      }
      return translation;
    },
  };
}
