/**
 * Byte-pair ranks held compactly: an open-addressing hash in one typed array whose slots
 * hold a token's rank, length and first eight bytes, so that a lookup reads one slot (one
 * cache line, mostly) and only a token longer than eight bytes reads the rest of its bytes
 * elsewhere. A lookup is the merge's unit of work; the previous table read four places
 * in memory for one. o200k_base's tokens take little more than their own bytes so, where
 * gpt-tokenizer's own tables (an object per token), and the compiling of the large module
 * that holds them, kept many times that (bench/README.md).
 */
import { forEachToken } from "./tiktoken_file.ts";

/** Ints a slot takes: rank + 1 and length; bytes 0-3; bytes 4-7. */
const SLOT = 3;
/** Bytes held in a slot. */
const INLINE = 8;
/** The meta int: rank + 1 in the low 20 bits, the length above. */
const RANK_BITS = 20;
const RANK_MASK = (1 << RANK_BITS) - 1;

/** A table of byte sequences and their ranks. */
export class BpeRanks {
  readonly #slots: Int32Array;
  readonly #mask: number;
  /** The bytes of tokens longer than a slot holds, past their first eight; where by rank. */
  readonly #tails: Uint8Array;
  readonly #tailStarts: Uint32Array;
  /** The longest token's length in bytes: no longer sequence needs looking up. */
  readonly maxTokenBytes: number;
  /** The highest rank. */
  readonly maxRank: number;

  /**
   * Two passes over the file, the first to size the tables: nothing but them is kept, and
   * nothing grows on the way.
   */
  private constructor(file: Uint8Array) {
    let count = 0;
    let longest = 0;
    let tailBytes = 0;
    let maxRank = 0;
    forEachToken(file, (_, length, rank) => {
      count++;
      longest = Math.max(longest, length);
      tailBytes += Math.max(0, length - INLINE);
      maxRank = Math.max(maxRank, rank);
    });
    if (maxRank >= RANK_MASK || longest > 0x7ff) {
      throw new RangeError("Reading token ranks failed: ranks or tokens too large for the table.");
    }
    this.maxTokenBytes = longest;
    this.maxRank = maxRank;
    let size = 1;
    while (size < count * 2) size *= 2;
    this.#slots = new Int32Array(size * SLOT);
    this.#mask = size - 1;
    this.#tails = new Uint8Array(tailBytes);
    this.#tailStarts = new Uint32Array(maxRank + 1);
    let written = 0;
    forEachToken(file, (bytes, length, rank) => {
      this.#insert(bytes, 0, length, rank);
      this.#tailStarts[rank] = written;
      for (let i = INLINE; i < length; i++) this.#tails[written++] = bytes[i]!;
    });
  }

  /** Reads a `.tiktoken` file (tiktoken_file.ts); throws on a line that is not "BASE64 RANK". */
  static parse(file: Uint8Array): BpeRanks {
    return new BpeRanks(file);
  }

  /** The rank of the token that is `bytes[from, to)`, or -1 when none is. */
  rank(bytes: Uint8Array, from: number, to: number): number {
    const length = to - from;
    if (length > this.maxTokenBytes || length <= 0) return -1;
    const low = word(bytes, from, Math.min(to, from + 4));
    const high = word(bytes, from + 4, Math.min(to, from + INLINE));
    const slots = this.#slots;
    for (
      let slot = hash(bytes, from, to, low, high) & this.#mask;;
      slot = (slot + 1) & this.#mask
    ) {
      const at = slot * SLOT;
      const meta = slots[at]!;
      if (meta === 0) return -1;
      if (
        meta >>> RANK_BITS === length && slots[at + 1] === low && slots[at + 2] === high &&
        (length <= INLINE || this.#sameTail(bytes, from + INLINE, to, (meta & RANK_MASK) - 1))
      ) {
        return (meta & RANK_MASK) - 1;
      }
    }
  }

  #insert(bytes: Uint8Array, from: number, to: number, rank: number): void {
    const low = word(bytes, from, Math.min(to, from + 4));
    const high = word(bytes, from + 4, Math.min(to, from + INLINE));
    let slot = hash(bytes, from, to, low, high) & this.#mask;
    while (this.#slots[slot * SLOT] !== 0) slot = (slot + 1) & this.#mask;
    this.#slots[slot * SLOT] = ((to - from) << RANK_BITS) | (rank + 1);
    this.#slots[slot * SLOT + 1] = low;
    this.#slots[slot * SLOT + 2] = high;
  }

  /** Whether `bytes[from, to)` is the tail of the token ranked `rank`. */
  #sameTail(bytes: Uint8Array, from: number, to: number, rank: number): boolean {
    const start = this.#tailStarts[rank]!;
    for (let i = from; i < to; i++) {
      if (this.#tails[start + i - from] !== bytes[i]) return false;
    }
    return true;
  }
}

/** Up to four bytes, little-endian, in one int. */
function word(bytes: Uint8Array, from: number, to: number): number {
  let value = 0;
  for (let i = to - 1; i >= from; i--) value = (value << 8) | bytes[i]!;
  return value;
}

/** A hash of `bytes[from, to)`, whose first eight bytes are `low` and `high`. */
function hash(bytes: Uint8Array, from: number, to: number, low: number, high: number): number {
  let h = Math.imul(low ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(high ^ (to - from), 0xc2b2ae35);
  for (let i = from + INLINE; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}
