/**
 * tiktoken's merge (the pair of adjacent parts whose joined bytes rank lowest, the
 * leftmost of equals, merged again and again) counted in O(n log n) for a piece of n
 * bytes: the pairs wait in a heap, each keyed by its rank and its position, and a key
 * whose pair has since changed is passed over when it comes up. tiktoken and
 * gpt-tokenizer scan every pair for each merge, O(n²): each merge in a long run of one letter
 * (merged one pair at a time) scans the whole run again.
 */
import type { BpeRanks } from "./bpe.ts";

/** Pieces up to this many bytes scan their pairs: for them a heap costs more than it saves. */
const SCAN_BYTES = 16;

/**
 * Counts of pieces up to 12 bytes, remembered in a table small enough to stay in the
 * CPU's cache: a text's common words come again and again, and the rank table (megabytes)
 * costs a trip to memory for each lookup.
 */
const CACHED_BYTES = 12;
/** Entries of the remembered counts (a power of two), four ints each. */
const CACHE_ENTRIES = 4096;

/** A key is rank << POSITION_BITS | position: ranks under 2^19 keep it a small integer. */
const POSITION_BITS = 12;
const POSITION_MASK = (1 << POSITION_BITS) - 1;

/**
 * Work a rank lookup counts for, against a byte of splitting (piece_count.ts): a lookup
 * that misses the CPU's caches is a trip to memory, many times a byte's splitting.
 */
const LOOKUP_WORK = 5;
/** Work a heap's lookup counts for, against one of a short piece's: the heap's own steps. */
const HEAP_WEIGHT = 2;

/** The longest piece `BpeMerger` takes, in bytes. */
export const MAX_MERGE_BYTES = 1 << POSITION_BITS;

/**
 * Counts the tokens of byte pieces over one rank table, with scratch space of its own
 * (one merger per counter; it is not re-entrant). `work` adds up its rank lookups, the
 * measure of its CPU (piece_count.ts adds its own).
 */
export class BpeMerger {
  readonly #ranks: BpeRanks;
  /** Units of work done since this merger was built. */
  work = 0;
  /** next[i]: where the part that starts at byte i ends (the next part's start). */
  #next = new Int32Array(0);
  /** prev[i]: where the part before the one at i starts. */
  #prev = new Int32Array(0);
  /** pair[i]: the rank of the part at i joined with the next, -1 for no token or no part. */
  #pair = new Int32Array(0);
  #heap = new Int32Array(0);
  /** Per entry: the piece's bytes in three ints, then its length + its count << 8. */
  readonly #cache = new Int32Array(CACHE_ENTRIES * 4);

  constructor(ranks: BpeRanks) {
    if (ranks.maxRank >= 1 << (31 - POSITION_BITS)) {
      throw new RangeError(
        `Counting tokens failed: rank ${ranks.maxRank} is over the merge's bound.`,
      );
    }
    this.#ranks = ranks;
  }

  /**
   * Forgets the remembered counts: the work a text costs then depends on that text alone,
   * and so does where a bounded count's budget ends (bounded_count.ts): one text, one count.
   */
  forget(): void {
    this.#cache.fill(0);
  }

  /** How many tokens `bytes[from, to)` encodes to; at most `MAX_MERGE_BYTES` bytes. */
  count(bytes: Uint8Array, from: number, to: number): number {
    const length = to - from;
    if (length <= 1) return length;
    if (length > CACHED_BYTES) return this.#merge(bytes, from, to);
    const a = pack(bytes, from, Math.min(to, from + 4));
    const b = pack(bytes, from + 4, Math.min(to, from + 8));
    const c = pack(bytes, from + 8, to);
    let slot = Math.imul(
      a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c ^ length, 0x85ebca6b),
      0xc2b2ae35,
    );
    slot = ((slot ^ (slot >>> 16)) & (CACHE_ENTRIES - 1)) * 4;
    const cache = this.#cache;
    const meta = cache[slot + 3]!;
    if (
      (meta & 0xff) === length && cache[slot] === a && cache[slot + 1] === b &&
      cache[slot + 2] === c
    ) {
      return meta >> 8;
    }
    const tokens = this.#merge(bytes, from, to);
    cache[slot] = a;
    cache[slot + 1] = b;
    cache[slot + 2] = c;
    cache[slot + 3] = length | (tokens << 8);
    return tokens;
  }

  #merge(bytes: Uint8Array, from: number, to: number): number {
    const length = to - from;
    if (this.#rank(bytes, from, to) >= 0) return 1;
    if (length > MAX_MERGE_BYTES) {
      throw new RangeError(
        `Counting tokens failed: a piece of ${length} bytes is over the merge's bound.`,
      );
    }
    return length <= SCAN_BYTES
      ? this.#scan(bytes, from, length)
      : this.#heapMerge(bytes, from, length);
  }

  #rank(bytes: Uint8Array, from: number, to: number): number {
    this.work += LOOKUP_WORK;
    return this.#ranks.rank(bytes, from, to);
  }

  /** The merge as tiktoken writes it, for a short piece: every pair scanned for each merge. */
  #scan(bytes: Uint8Array, from: number, length: number): number {
    this.#reserve(length);
    // starts[0, parts] are the parts' starts and the end; pairs[i] ranks parts i and i + 1.
    const starts = this.#next;
    const pairs = this.#pair;
    for (let i = 0; i <= length; i++) starts[i] = i;
    let parts = length;
    for (let i = 0; i < parts - 1; i++) pairs[i] = this.#rank(bytes, from + i, from + i + 2);
    while (parts > 1) {
      // The scan is this merge's cost: it counts as work, so that a scan of a long piece shows.
      this.work += parts;
      let at = -1;
      let lowest = Infinity;
      for (let i = 0; i < parts - 1; i++) {
        const rank = pairs[i]!;
        if (rank >= 0 && rank < lowest) {
          lowest = rank;
          at = i;
        }
      }
      if (at < 0) break;
      // Plain loops: for a few entries `copyWithin`'s call costs more than the copy.
      for (let i = at + 1; i < parts; i++) starts[i] = starts[i + 1]!;
      for (let i = at; i < parts - 2; i++) pairs[i] = pairs[i + 1]!;
      parts--;
      if (at < parts - 1) pairs[at] = this.#rank(bytes, from + starts[at]!, from + starts[at + 2]!);
      if (at > 0) pairs[at - 1] = this.#rank(bytes, from + starts[at - 1]!, from + starts[at + 1]!);
    }
    return parts;
  }

  /** The same merges, the pairs waiting in a binary heap. */
  #heapMerge(bytes: Uint8Array, from: number, length: number): number {
    this.#reserve(length);
    const start = this.work;
    const parts = this.#heapSteps(bytes, from, length);
    this.work += (this.work - start) * (HEAP_WEIGHT - 1);
    return parts;
  }

  #heapSteps(bytes: Uint8Array, from: number, length: number): number {
    const next = this.#next;
    const prev = this.#prev;
    const pair = this.#pair;
    const heap = this.#heap;
    let size = 0;
    const push = (key: number) => {
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (heap[parent]! <= key) break;
        heap[at] = heap[parent]!;
        at = parent;
      }
      heap[at] = key;
    };
    for (let i = 0; i < length; i++) {
      next[i] = i + 1;
      prev[i] = i - 1;
    }
    for (let i = 0; i < length - 1; i++) {
      const rank = this.#rank(bytes, from + i, from + i + 2);
      pair[i] = rank;
      if (rank >= 0) push((rank << POSITION_BITS) | i);
    }
    pair[length - 1] = -1;
    let parts = length;
    while (size > 0) {
      const key = heap[0]!;
      // Pop: the last key sifts down from the root.
      const last = heap[--size]!;
      let at = 0;
      for (;;) {
        let child = 2 * at + 1;
        if (child >= size) break;
        if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
        if (heap[child]! >= last) break;
        heap[at] = heap[child]!;
        at = child;
      }
      heap[at] = last;
      const rank = key >> POSITION_BITS;
      const i = key & POSITION_MASK;
      // A pair's bytes only grow as parts merge, and a rank names one byte sequence: a key
      // whose rank its position no longer holds is stale, and no stale key can match again.
      if (pair[i] !== rank) continue;
      const merged = next[i]!;
      const end = next[merged]!;
      next[i] = end;
      if (end < length) prev[end] = i;
      pair[merged] = -1;
      parts--;
      pair[i] = end < length ? this.#rank(bytes, from + i, from + next[end]!) : -1;
      if (pair[i]! >= 0) push((pair[i]! << POSITION_BITS) | i);
      if (i > 0) {
        const before = prev[i]!;
        pair[before] = this.#rank(bytes, from + before, from + end);
        if (pair[before]! >= 0) push((pair[before]! << POSITION_BITS) | before);
      }
    }
    return parts;
  }

  /** Scratch for a piece of `length` bytes. */
  #reserve(length: number): void {
    if (this.#next.length > length) return;
    const size = Math.max(length + 1, this.#next.length * 2, 64);
    this.#next = new Int32Array(size);
    this.#prev = new Int32Array(size);
    this.#pair = new Int32Array(size);
    this.#heap = new Int32Array(size * 2);
  }
}

/** Up to four bytes, little-endian, in one int. */
function pack(bytes: Uint8Array, from: number, to: number): number {
  let value = 0;
  for (let i = to - 1; i >= from; i--) value = (value << 8) | bytes[i]!;
  return value;
}
