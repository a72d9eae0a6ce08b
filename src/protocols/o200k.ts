/**
 * o200k_base's ranks and pre-tokenizing split, read once when token_count.ts first imports
 * this module: the module system keeps them for the process after that.
 */
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/esm/encodingParams/constants";
import { BpeRanks } from "./bpe.ts";

/** The ranks of o200k_base, from gpt-tokenizer's copy of tiktoken's file. */
export const O200K_RANKS = BpeRanks.parse(
  await Deno.readFile(new URL(import.meta.resolve("gpt-tokenizer/data/o200k_base.tiktoken"))),
);

/** Where o200k_base splits a text into the pieces it encodes one by one. */
export const O200K_SPLIT: RegExp = O200K_TOKEN_SPLIT_REGEX;
