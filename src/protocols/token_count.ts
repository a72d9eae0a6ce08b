/**
 * The token counter (o200k_base), loaded on first use: a gateway whose upstreams report
 * usage may never need a count. Its ranks are read compactly (bpe.ts: ~5 MB) rather than
 * through gpt-tokenizer's own encoder, whose tables and module kept ~60 MiB of a process.
 * The runtime keeps the loaded module, so later loads cost one resolved import.
 */
import type { BpeRanks } from "./bpe.ts";

/** Counts the tokens of a text. */
export type CountTokens = (text: string) => number;

/** The counter, treating special-token markers ("<|endoftext|>") as plain text. */
export async function loadTokenCounter(): Promise<CountTokens> {
  try {
    const { O200K_RANKS, O200K_SPLIT } = await import("./o200k.ts");
    return tokenCounter(O200K_RANKS, O200K_SPLIT);
  } catch {
    // The rank file unreadable (an executable built without it): gpt-tokenizer's own
    // encoder counts the same, in more memory. A settlement must never lack its count.
    const { countTokens } = await import("gpt-tokenizer");
    const options = { disallowedSpecial: new Set<string>() };
    return (text) => countTokens(text, options);
  }
}

/** A counter over `ranks` that encodes each piece `split` (a global regex) cuts `text` into. */
export function tokenCounter(ranks: BpeRanks, split: RegExp): CountTokens {
  const encoder = new TextEncoder();
  let scratch = new Uint8Array(256);
  return (text) => {
    let count = 0;
    for (const [piece] of text.matchAll(split)) {
      // UTF-8 takes at most 3 bytes for each UTF-16 unit (a lone surrogate becomes U+FFFD).
      if (piece.length * 3 > scratch.length) scratch = new Uint8Array(piece.length * 3);
      const { written } = encoder.encodeInto(piece, scratch);
      count += ranks.countParts(scratch, written);
    }
    return count;
  };
}
