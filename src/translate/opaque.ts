/**
 * Carrying an upstream's opaque reasoning state through a client of another protocol.
 * A client keeps what it finds in its own opaque field (a thinking `signature`, a
 * reasoning item's `encrypted_content`) and sends it back with the history; a value of
 * another kind travels there wrapped with its kind, and is unwrapped when it returns.
 */
import type { IrOpaque } from "./ir.ts";

const PREFIX = "tollgate:";
const KINDS: readonly IrOpaque["kind"][] = [
  "anthropic_signature",
  "anthropic_redacted",
  "openai_encrypted",
  "gemini_signature",
];

/** The value to put in a field whose native kind is `native`: raw if it is that kind, else wrapped. */
export function wrapOpaque(opaque: IrOpaque, native: IrOpaque["kind"]): string {
  return opaque.kind === native ? opaque.value : `${PREFIX}${opaque.kind}:${opaque.value}`;
}

/** The opaque state a client sent back in a field whose native kind is `native`. */
export function unwrapOpaque(value: string, native: IrOpaque["kind"]): IrOpaque {
  if (value.startsWith(PREFIX)) {
    const rest = value.slice(PREFIX.length);
    const colon = rest.indexOf(":");
    const kind = rest.slice(0, colon) as IrOpaque["kind"];
    if (colon > 0 && KINDS.includes(kind)) return { kind, value: rest.slice(colon + 1) };
  }
  return { kind: native, value };
}
