/**
 * The o200k_base counter, built once when token_count.ts first imports this module (the
 * module system keeps it for the process after that): gpt-tokenizer's copy of tiktoken's
 * rank file, read into compact tables, and gpt-tokenizer's o200k split.
 */
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/esm/encodingParams/constants";
import { bpeCounter, BpeRanks } from "./bpe.ts";

/** Counts a text's o200k_base tokens, special-token markers as plain text. */
export const countO200k: (text: string) => number = bpeCounter(
  BpeRanks.parse(
    await Deno.readFile(new URL(import.meta.resolve("gpt-tokenizer/data/o200k_base.tiktoken"))),
  ),
  O200K_TOKEN_SPLIT_REGEX,
);
