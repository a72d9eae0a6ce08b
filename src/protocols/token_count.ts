/**
 * The token counter (o200k_base, from gpt-tokenizer), loaded on first use: its tables
 * take about 60 MiB, and a gateway whose upstreams report usage may never need a count.
 * The runtime keeps the module once loaded, so later loads cost one resolved import.
 */

/** Counts the tokens of a text. */
export type CountTokens = (text: string) => number;

/** The counter, treating special-token markers ("<|endoftext|>") as plain text. */
export async function loadTokenCounter(): Promise<CountTokens> {
  const { countTokens } = await import("gpt-tokenizer");
  // The default would throw on "<|endoftext|>" in user text; a count must never throw.
  const options = { disallowedSpecial: new Set<string>() };
  return (text) => countTokens(text, options);
}
