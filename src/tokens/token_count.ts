/**
 * The token counter (o200k_base), loaded on first use: a gateway whose upstreams report
 * usage may never need a count. Every count is bounded (bounded_count.ts): exact while
 * that costs little, estimated past it, within a fixed amount of work whatever the text,
 * so that no prompt holds the serving thread. The ranks are read compactly (bpe.ts) rather
 * than through gpt-tokenizer's own encoder, whose tables and module kept far more memory
 * than the compact ones.
 * The runtime keeps the loaded module, so later loads cost one resolved import.
 */
import type { BoundedCounter } from "./bounded_count.ts";

/** Counts the tokens of a text (special-token markers such as "<|endoftext|>" as plain text). */
export interface CountTokens {
  (text: string): number;
  /** Where the longest prefix of `text` within `limit` tokens ends, at a piece's end. */
  fit(text: string, limit: number): number;
}

/** The counter, with what each count cost and whether it is exact (tests, the bench). */
export async function loadTokenTally(): Promise<BoundedCounter> {
  return (await import("./o200k.ts")).O200K_COUNTER;
}

/** The counter. */
export async function loadTokenCounter(): Promise<CountTokens> {
  const counter = await loadTokenTally();
  return Object.assign((text: string) => counter.tally(text).tokens, {
    fit: (text: string, limit: number) => counter.fit(text, limit),
  });
}

/** Counts the tokens of a prompt's texts (a protocol's `promptText`), joined by newlines. */
export function countPromptTokens(
  prompt: { texts: readonly string[] },
  count: CountTokens,
): number {
  return count(prompt.texts.join("\n"));
}
