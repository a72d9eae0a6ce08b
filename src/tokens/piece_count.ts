/**
 * Exact counting: a text cut into pieces by the encoding's split pattern, each piece's
 * UTF-8 bytes merged (bpe_merge.ts). A piece longer than a window (a run of one letter,
 * which the pattern never cuts) is merged a window at a time: its count may then differ
 * from tiktoken's by a token or so per window, and its work stays O(n log window).
 */
import type { BpeRanks } from "./bpe.ts";
import { BpeMerger, MAX_MERGE_BYTES } from "./bpe_merge.ts";

/** How an encoding cuts text into pieces. */
export interface Split {
  /** A pattern whose matches cover every text end to end, as tiktoken's do. */
  pattern: RegExp;
  /**
   * Where the piece at `bytes[from]` ends (a text's UTF-8 bytes, up to `end`), found
   * without the pattern (faster), or -1 where the pattern must decide.
   */
  asciiEnd?: (bytes: Uint8Array, from: number, end: number) => number;
  /**
   * Whether cutting `text` at `at` changes none of its pieces (those before end there
   * whatever follows, and the pattern reads on from there alone); true at either end.
   */
  cleanCut?: (text: string, at: number) => boolean;
}

/** Work a count costs beside its pieces: its call, encoding the text, its caller's cuts. */
const CALL_WORK = 32;

/** Counts texts exactly, with scratch space of its own (it is not re-entrant). */
export class PieceCounter {
  readonly #merger: BpeMerger;
  /** The pattern's own sticky copy: it keeps its position in `lastIndex`. */
  readonly #pattern: RegExp;
  readonly #asciiEnd: (bytes: Uint8Array, from: number, end: number) => number;
  readonly #window: number;
  readonly #encoder = new TextEncoder();
  #bytes = new Uint8Array(4096);
  /** Bytes cut into pieces since this counter was built, one more for each piece and call. */
  #scanned = 0;
  #windowed = 0;

  /** Counts over `ranks`, cutting with `split` and merging at most `window` bytes at once. */
  constructor(ranks: BpeRanks, split: Split, window: number) {
    if (window > MAX_MERGE_BYTES) {
      throw new RangeError(
        `Counting tokens failed: a merge window of ${window} bytes is too large.`,
      );
    }
    this.#merger = new BpeMerger(ranks);
    this.#pattern = new RegExp(split.pattern.source, "uy");
    this.#asciiEnd = split.asciiEnd ?? (() => -1);
    this.#window = window;
  }

  /** Units of work done since this counter was built: bytes cut, and the merges' work. */
  get work(): number {
    return this.#scanned + this.#merger.work;
  }

  /** Pieces merged a window at a time since this counter was built (their counts may differ). */
  get windowed(): number {
    return this.#windowed;
  }

  /** Forgets what earlier texts taught it (bpe_merge.ts's `forget`). */
  forget(): void {
    this.#merger.forget();
  }

  /** The tokens of `text`. */
  count(text: string): number {
    return this.fit(text, Infinity).tokens;
  }

  /**
   * The longest prefix of `text` made of whole pieces whose tokens are within `limit`:
   * its tokens and its length in characters.
   */
  fit(text: string, limit: number): { tokens: number; chars: number } {
    this.#scanned += CALL_WORK;
    // UTF-8 takes at most 3 bytes for each UTF-16 unit (a lone surrogate becomes U+FFFD).
    if (text.length * 3 > this.#bytes.length) this.#bytes = new Uint8Array(text.length * 3);
    const bytes = this.#bytes;
    const length = this.#encoder.encodeInto(text, bytes).written;
    let tokens = 0;
    // The piece at byte `at` starts at `char` in the text: a piece cut without the pattern
    // is ASCII, as long in bytes as in characters.
    let char = 0;
    for (let at = 0; at < length;) {
      let end = this.#asciiEnd(bytes, at, length);
      let charEnd = char + end - at;
      if (end < 0) {
        charEnd = this.#patternEnd(text, char);
        end = at + utf8Length(text, char, charEnd);
      }
      const pieceTokens = this.#countPiece(bytes, at, end);
      // A piece costs about a byte's work beside its bytes.
      this.#scanned += end - at + 1;
      if (tokens + pieceTokens > limit) break;
      tokens += pieceTokens;
      char = charEnd;
      at = end;
    }
    return { tokens, chars: char };
  }

  /** Where the pattern's piece at `text[from]` ends. */
  #patternEnd(text: string, from: number): number {
    // `test` moves `lastIndex` to the piece's end without building a match; a pattern
    // that failed to match (none of tiktoken's does) leaves one character as a piece.
    const pattern = this.#pattern;
    pattern.lastIndex = from;
    return pattern.test(text) ? pattern.lastIndex : from + 1;
  }

  #countPiece(bytes: Uint8Array, from: number, to: number): number {
    if (to - from <= this.#window) return this.#merger.count(bytes, from, to);
    this.#windowed++;
    // A run of one character (the usual long piece) repeats window after window when a
    // window's length is a multiple of the character's: such a window is counted once.
    let tokens = 0;
    let last = -1;
    let lastTokens = 0;
    for (let at = from; at < to; at += this.#window) {
      const end = Math.min(at + this.#window, to);
      if (last < 0 || end - at !== this.#window || !sameBytes(bytes, last, at, this.#window)) {
        last = at;
        lastTokens = this.#merger.count(bytes, at, end);
      }
      tokens += lastTokens;
    }
    return tokens;
  }
}

/** Whether `bytes[a, a + length)` and `bytes[b, b + length)` are the same. */
function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) {
    if (bytes[a + i] !== bytes[b + i]) return false;
  }
  return true;
}

/** The length in UTF-8 of `text[from, to)`, a lone surrogate taken as U+FFFD. */
function utf8Length(text: string, from: number, to: number): number {
  let length = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < to) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        length += 4;
        i++;
      } else {
        length += 3;
      }
    } else {
      length += 3;
    }
  }
  return length;
}
