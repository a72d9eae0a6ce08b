/**
 * The token counter (o200k_base), loaded on first use: a gateway whose upstreams report
 * usage may never need a count. Its ranks are read compactly (bpe.ts: ~5 MB) rather than
 * through gpt-tokenizer's own encoder, whose tables and module kept ~60 MiB of a process.
 * The runtime keeps the loaded module, so later loads cost one resolved import.
 */

/** Counts the tokens of a text. */
export type CountTokens = (text: string) => number;

/** The counter, treating special-token markers ("<|endoftext|>") as plain text. */
export async function loadTokenCounter(): Promise<CountTokens> {
  try {
    return (await import("./o200k.ts")).countO200k;
  } catch {
    // The rank file unreadable (an executable built without it): gpt-tokenizer's own
    // encoder counts the same, in more memory. A settlement must never lack its count.
    const { countTokens } = await import("gpt-tokenizer");
    const options = { disallowedSpecial: new Set<string>() };
    return (text) => countTokens(text, options);
  }
}
