/**
 * o200k_base's split pattern, and the same split written out by hand for ASCII text,
 * over its UTF-8 bytes: the pattern (its Unicode classes, its seven alternatives tried in
 * turn) costs many times what this does a piece of code. Where a decision would read a
 * byte past ASCII the hand-written split gives up and the pattern decides
 * (piece_count.ts); the tests compare the two over generated texts. Also where a text can
 * be cut without changing its pieces, for counting it in chunks (bounded_count.ts).
 */
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/esm/encodingParams/constants";
import type { Split } from "./piece_count.ts";

const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
/** Whitespace other than \r and \n: tab, vertical tab, form feed, space. */
const SPACE = 4;
const NEWLINE = 5;
/** Any other ASCII character: punctuation, symbols and controls. */
const OTHER = 6;
/** A byte of a character past ASCII. */
const PAST = 7;

/** Each byte's class, as the pattern's character classes see its character. */
const CLASSES = new Uint8Array(256).map((_, code) => {
  if (code >= 128) return PAST;
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 48 && code <= 57) return DIGIT;
  if (code === 10 || code === 13) return NEWLINE;
  if (code === 32 || (code >= 9 && code <= 12)) return SPACE;
  return OTHER;
});

const APOSTROPHE = 39;
const SLASH = 47;
const SPACE_CODE = 32;

/**
 * Where the piece of the o200k pattern that starts at `bytes[from]` ends (the text's
 * UTF-8 bytes, ending at `end`), decided without the pattern; -1 when that depends on a
 * byte past ASCII.
 */
export function o200kAsciiEnd(bytes: Uint8Array, from: number, end: number): number {
  const own = classAt(bytes, from, end);
  if (own < 0) return -1;
  if (own === UPPER || own === LOWER) return letters(bytes, from, end);
  if (own === DIGIT) return digits(bytes, from, end);
  if (own === NEWLINE) return whitespace(bytes, from, end);
  // Space, tab or any other character may lead a word: `[^\r\n\p{L}\p{N}]?` before letters.
  const next = classAt(bytes, from + 1, end);
  if (next < 0) return -1;
  if (next === UPPER || next === LOWER) return letters(bytes, from + 1, end);
  if (own === OTHER) return others(bytes, from, end);
  // ` ?[^\s\p{L}\p{N}]+`: a space may lead punctuation.
  if (next === OTHER && bytes[from] === SPACE_CODE) return others(bytes, from + 1, end);
  return whitespace(bytes, from, end);
}

/** The class of `bytes[at]`: 0 at the end, -1 past ASCII. */
function classAt(bytes: Uint8Array, at: number, end: number): number {
  if (at >= end) return 0;
  const kind = CLASSES[bytes[at]!]!;
  return kind === PAST ? -1 : kind;
}

/** Upper-case letters then lower-case ones, then perhaps a contraction ('s, 'll, ...). */
function letters(bytes: Uint8Array, at: number, end: number): number {
  let to = at;
  while (to < end && CLASSES[bytes[to]!] === UPPER) to++;
  while (to < end && CLASSES[bytes[to]!] === LOWER) to++;
  if (to === end) return to;
  if (CLASSES[bytes[to]!] === PAST) return -1;
  if (bytes[to] !== APOSTROPHE) return to;
  const first = to + 1 < end ? bytes[to + 1]! | 0x20 : 0;
  if (first === 0x73 || first === 0x64 || first === 0x6d || first === 0x74) return to + 2; // s d m t
  const second = to + 2 < end ? bytes[to + 2]! | 0x20 : 0;
  if (first === 0x6c && second === 0x6c) return to + 3; // ll
  if ((first === 0x76 || first === 0x72) && second === 0x65) return to + 3; // ve re
  return to;
}

/** `\p{N}{1,3}`. */
function digits(bytes: Uint8Array, at: number, end: number): number {
  let to = at;
  while (to < at + 3 && to < end && CLASSES[bytes[to]!] === DIGIT) to++;
  return to < at + 3 && to < end && CLASSES[bytes[to]!] === PAST ? -1 : to;
}

/** `[^\s\p{L}\p{N}]+[\r\n/]*`. */
function others(bytes: Uint8Array, at: number, end: number): number {
  let to = at;
  while (to < end && CLASSES[bytes[to]!] === OTHER) to++;
  if (to < end && CLASSES[bytes[to]!] === PAST) return -1;
  while (to < end && (bytes[to] === 10 || bytes[to] === 13 || bytes[to] === SLASH)) to++;
  return to;
}

/**
 * `\s*[\r\n]+|\s+(?!\S)|\s+`: up to the run's last line break if it has one; else the
 * run but its last character, which then leads the next word; else the one character.
 */
function whitespace(bytes: Uint8Array, at: number, end: number): number {
  let to = at;
  let lastBreak = -1;
  for (; to < end; to++) {
    const kind = CLASSES[bytes[to]!];
    if (kind === PAST) return -1;
    if (kind === NEWLINE) lastBreak = to;
    else if (kind !== SPACE) break;
  }
  if (lastBreak >= 0) return lastBreak + 1;
  if (to === end || to - at === 1) return to;
  return to - 1;
}

/** How far a run of spaces after a line break is followed, to see that it breaks no line. */
const RUN_SEARCH = 64;

/**
 * Whether cutting `text` at `at` changes none of its pieces under o200k's split (the piece
 * before ends there whatever follows, and the pattern reads on from it alone):
 * - before a space that no whitespace precedes: no piece but whitespace's takes in a
 *   space after it, and a space leads the piece of what follows (a word, punctuation);
 * - after a line break, where what follows is no line break nor "/" (which punctuation's
 *   piece takes on after its line breaks), and any spaces or tabs that follow lead to no
 *   further line break (whitespace's piece runs to the last line break of its run).
 */
export function o200kCleanCut(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return true;
  if (text.charCodeAt(at) === 32 && !isWhitespace(text.charCodeAt(at - 1))) return true;
  if (text.charCodeAt(at - 1) !== 10) return false;
  const limit = Math.min(text.length, at + RUN_SEARCH);
  for (let i = at; i < limit; i++) {
    const next = text.charCodeAt(i);
    if (next === 32 || next === 9) continue;
    // Whitespace past ASCII may go on to a line break: not clean.
    return !isWhitespace(next) && (i > at || next !== 47);
  }
  return limit === text.length;
}

/** Whether `code` is whitespace to the pattern (`\s`). */
function isWhitespace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f ||
    code === 0x3000 || code === 0xfeff;
}

/** o200k_base's split: gpt-tokenizer's copy of tiktoken's pattern, its ASCII path, its cuts. */
export const O200K_SPLIT: Split = {
  pattern: O200K_TOKEN_SPLIT_REGEX,
  asciiEnd: o200kAsciiEnd,
  cleanCut: o200kCleanCut,
};
