/**
 * The o200k_base counter, built once when token_count.ts first imports this module (the
 * module system keeps it for the process after that): gpt-tokenizer's copy of tiktoken's
 * rank file read into compact tables (bpe.ts), and o200k's split (o200k_split.ts). The
 * file is a `bytes` import: part of the module graph, so that `deno compile` builds it
 * into the executable, which then reads nothing from node_modules.
 */
import file from "gpt-tokenizer/data/o200k_base.tiktoken" with { type: "bytes" };
import { type BoundedCounter, boundedCounter } from "./bounded_count.ts";
import { BpeRanks } from "./bpe.ts";
import { O200K_SPLIT } from "./o200k_split.ts";

/**
 * o200k_base's ranks. The file's bytes are handed over (`transfer` detaches the module's
 * buffer) and dropped once read: only the compact tables stay.
 */
export const O200K_RANKS: BpeRanks = BpeRanks.parse(new Uint8Array(file.buffer.transfer()));

/** The counter, within the default bounds; its scratch space is reused by every count. */
export const O200K_COUNTER: BoundedCounter = boundedCounter(O200K_RANKS, O200K_SPLIT);
