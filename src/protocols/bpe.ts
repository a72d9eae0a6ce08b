/**
 * Byte-pair encoding as tiktoken counts it, over ranks held compactly: every token's bytes
 * in one buffer, found through an open-addressing hash in a typed array. o200k_base's
 * 200,000 tokens take ~5 MB so; gpt-tokenizer's own tables, and the compiling of the
 * 2.4 MB module that holds them, kept ~60 MiB of a process for as long as it ran
 * (bench/README.md), and a gateway counts only now and then (token_count.ts).
 */

/** Base64's alphabet, by character code: the value of each digit, -1 for any other. */
const BASE64 = new Int8Array(128).fill(-1);
for (
  const [i, char] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"]
    .entries()
) {
  BASE64[char.charCodeAt(0)] = i;
}

/** A table of byte sequences and their ranks. */
export class BpeRanks {
  readonly #bytes: Uint8Array;
  /** Token i's bytes are #bytes[#starts[i], #starts[i + 1]). */
  readonly #starts: Uint32Array;
  readonly #ranks: Int32Array;
  /** Token index + 1 at each slot, 0 for none. */
  readonly #slots: Int32Array;
  readonly #mask: number;

  private constructor(bytes: Uint8Array, starts: Uint32Array, ranks: Int32Array) {
    this.#bytes = bytes;
    this.#starts = starts;
    this.#ranks = ranks;
    const count = ranks.length;
    let size = 1;
    while (size < count * 2) size *= 2;
    this.#slots = new Int32Array(size);
    this.#mask = size - 1;
    for (let token = 0; token < count; token++) {
      let slot = hash(bytes, starts[token]!, starts[token + 1]!) & this.#mask;
      while (this.#slots[slot] !== 0) slot = (slot + 1) & this.#mask;
      this.#slots[slot] = token + 1;
    }
  }

  /**
   * Reads a `.tiktoken` file: one token a line, its bytes in base64, a space and its rank.
   * Two passes over the file, the first to size the tables: nothing but them is kept, and
   * nothing grows on the way. Throws on a line that is not so.
   */
  static parse(file: Uint8Array): BpeRanks {
    let count = 0;
    let size = 0;
    forEachLine(file, (from, space) => {
      count++;
      size += decodedLength(file, from, space);
    });
    const bytes = new Uint8Array(size);
    const starts = new Uint32Array(count + 1);
    const ranks = new Int32Array(count);
    let token = 0;
    let written = 0;
    forEachLine(file, (from, space, end) => {
      starts[token] = written;
      ranks[token++] = decimal(file, space + 1, end);
      written = decodeBase64(file, from, space, bytes, written);
    });
    starts[count] = written;
    return new BpeRanks(bytes, starts, ranks);
  }

  /** The rank of the token that is `bytes[from, to)`, or -1 when none is. */
  rank(bytes: Uint8Array, from: number, to: number): number {
    const length = to - from;
    for (let slot = hash(bytes, from, to) & this.#mask;; slot = (slot + 1) & this.#mask) {
      const entry = this.#slots[slot]!;
      if (entry === 0) return -1;
      const start = this.#starts[entry - 1]!;
      if (this.#starts[entry]! - start !== length) continue;
      let same = true;
      for (let i = 0; i < length; i++) {
        if (this.#bytes[start + i] !== bytes[from + i]) {
          same = false;
          break;
        }
      }
      if (same) return this.#ranks[entry - 1]!;
    }
  }

  /**
   * How many tokens `bytes[0, length)` encodes to: the pair of adjacent parts whose joined
   * bytes rank lowest (the leftmost of equals) is merged, again and again, as tiktoken does.
   */
  countParts(bytes: Uint8Array, length: number): number {
    if (length <= 1 || this.rank(bytes, 0, length) >= 0) return Math.min(length, 1);
    // starts[i] is where part i begins; pairs[i] ranks parts i and i + 1 joined.
    const starts: number[] = [];
    const pairs: number[] = [];
    for (let i = 0; i <= length; i++) starts.push(i);
    for (let i = 0; i < length - 1; i++) pairs.push(this.#pairRank(bytes, starts, i));
    while (pairs.length > 0) {
      let lowest = Infinity;
      let at = -1;
      for (let i = 0; i < pairs.length; i++) {
        if (pairs[i]! < lowest) {
          lowest = pairs[i]!;
          at = i;
        }
      }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      pairs.splice(at, 1);
      if (at < pairs.length) pairs[at] = this.#pairRank(bytes, starts, at);
      if (at > 0) pairs[at - 1] = this.#pairRank(bytes, starts, at - 1);
    }
    return starts.length - 1;
  }

  /** The rank of parts `i` and `i + 1` joined; Infinity when they are no token. */
  #pairRank(bytes: Uint8Array, starts: number[], i: number): number {
    const rank = this.rank(bytes, starts[i]!, starts[i + 2]!);
    return rank < 0 ? Infinity : rank;
  }
}

/** A counter over `ranks` that encodes each piece `split` (a global regex) cuts a text into. */
export function bpeCounter(ranks: BpeRanks, split: RegExp): (text: string) => number {
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

/** FNV-1a over `bytes[from, to)`. */
function hash(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

const NEWLINE = 10;
const SPACE = 32;
const EQUALS = 61;

/** Calls `line` with each non-empty line's start, its space and its end; throws on a line with no space. */
function forEachLine(
  file: Uint8Array,
  line: (from: number, space: number, end: number) => void,
): void {
  for (let at = 0; at < file.length;) {
    let end = file.indexOf(NEWLINE, at);
    if (end < 0) end = file.length;
    if (end > at) {
      const space = file.indexOf(SPACE, at);
      if (space <= at || space >= end - 1) throw malformed(file, at, end);
      line(at, space, end);
    }
    at = end + 1;
  }
}

/** How many bytes the base64 in `file[from, to)` decodes to. */
function decodedLength(file: Uint8Array, from: number, to: number): number {
  let digits = to - from;
  while (digits > 0 && file[from + digits - 1] === EQUALS) digits--;
  return Math.floor((digits * 6) / 8);
}

/** The decimal number in `file[from, to)`. */
function decimal(file: Uint8Array, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = file[i]! - 48;
    if (digit < 0 || digit > 9) throw malformed(file, from, to);
    value = value * 10 + digit;
  }
  return value;
}

/** Decodes the base64 in `file[from, to)` into `out` at `at`; returns where it ended. */
function decodeBase64(
  file: Uint8Array,
  from: number,
  to: number,
  out: Uint8Array,
  at: number,
): number {
  let bits = 0;
  let count = 0;
  for (let i = from; i < to; i++) {
    const code = file[i]!;
    if (code === EQUALS) break;
    const digit = code < 128 ? BASE64[code]! : -1;
    if (digit < 0) throw malformed(file, from, to);
    bits = ((bits << 6) | digit) & 0xffffff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      out[at++] = (bits >> count) & 0xff;
    }
  }
  return at;
}

function malformed(file: Uint8Array, from: number, to: number): Error {
  const line = new TextDecoder().decode(file.subarray(from, Math.min(to, from + 80)));
  return new Error(`Reading token ranks failed: "${line}" is not a line "BASE64 RANK".`);
}
