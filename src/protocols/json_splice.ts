/**
 * One member of a JSON object's text replaced, every other byte kept as the client sent
 * it: a coding agent's prompt, large and sent again each turn, goes to a channel that maps
 * its model with only `model` changed, neither serialized again nor encoded.
 */

import { unescaped } from "./json_read.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const ENCODER = new TextEncoder();
/** Reads the text again rather than keep it: it would live while the upstream thinks. */
const DECODER = new TextDecoder();

/**
 * `bytes` (a JSON object's UTF-8 text) with the string value of its top-level member
 * `key` replaced by `value`; undefined unless exactly one top-level member is named `key`
 * and holds a string.
 */
export function withTopLevelString(
  bytes: Uint8Array,
  key: string,
  value: string,
): Uint8Array | undefined {
  // Without its byte-order mark, which the offsets below then step over.
  const text = DECODER.decode(bytes);
  const span = topLevelStringSpan(text, key);
  if (!span) return undefined;
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const start = bom + ENCODER.encode(text.slice(0, span[0])).byteLength;
  const end = start + ENCODER.encode(text.slice(span[0], span[1])).byteLength;
  const replacement = ENCODER.encode(JSON.stringify(value));
  const out = new Uint8Array(bytes.byteLength - (end - start) + replacement.byteLength);
  out.set(bytes.subarray(0, start));
  out.set(replacement, start);
  out.set(bytes.subarray(end), start + replacement.byteLength);
  return out;
}

/**
 * `bytes` (a JSON object's UTF-8 text) with `member` (`"name":value`, a name the object
 * does not have) written first.
 */
export function withFirstMember(bytes: Uint8Array, member: string): Uint8Array {
  const open = bytes.indexOf(OPEN_OBJECT);
  let next = open + 1;
  while (isSpace(bytes[next]!)) next++;
  const inserted = ENCODER.encode(bytes[next] === CLOSE_OBJECT ? member : `${member},`);
  const out = new Uint8Array(bytes.byteLength + inserted.byteLength);
  out.set(bytes.subarray(0, open + 1));
  out.set(inserted, open + 1);
  out.set(bytes.subarray(open + 1), open + 1 + inserted.byteLength);
  return out;
}

/**
 * Where the quoted string value of the one top-level member named `key` starts and ends
 * in `text`. When `"key"` is written once and nothing is written with `\u` escapes (the
 * only ones that can spell a letter), no other member can be so named: the members after
 * it are not read, which spares reading a whole prompt when `model` comes first.
 */
function topLevelStringSpan(text: string, key: string): [number, number] | undefined {
  // One pass of the regular expression engine finds both, where `indexOf` twice and
  // `includes` would read a long prompt three times.
  const written = new RegExp(`${escapeRegExp(JSON.stringify(key))}|\\\\u`, "g");
  let first = -1;
  for (const match of text.matchAll(written)) {
    if (match[0] === "\\u" || first >= 0) return membersSpan(text, key, -1);
    first = match.index;
  }
  // Not written, and no `\u` to spell it otherwise.
  return first < 0 ? undefined : membersSpan(text, key, first);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Reads the members of the object `text` for `key`'s string value; with `stopAt` (the
 * only place `key` is written) it ends at that member, else it reads them all, so that a
 * second member of that name refuses.
 */
function membersSpan(text: string, key: string, stopAt: number): [number, number] | undefined {
  let at = skipSpace(text, 0);
  if (text.charCodeAt(at) !== OPEN_OBJECT) return undefined;
  at = skipSpace(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_OBJECT) return undefined;
  let found: [number, number] | undefined;
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return undefined;
    // Past the one place `key` is written, and not at it: it was inside a value.
    if (stopAt >= 0 && at > stopAt) return membersSpan(text, key, -1);
    const nameEnd = stringEnd(text, at);
    if (nameEnd < 0) return undefined;
    const named = unescaped(text.slice(at + 1, nameEnd - 1)) === key;
    at = skipSpace(text, nameEnd);
    if (text.charCodeAt(at) !== COLON) return undefined;
    at = skipSpace(text, at + 1);
    const isString = text.charCodeAt(at) === QUOTE;
    const valueEnd = isString ? stringEnd(text, at) : valueEndOf(text, at);
    if (valueEnd < 0) return undefined;
    if (named) {
      if (found || !isString) return undefined;
      found = [at, valueEnd];
      if (stopAt >= 0) return found;
    }
    at = skipSpace(text, valueEnd);
    if (text.charCodeAt(at) === CLOSE_OBJECT) return found;
    if (text.charCodeAt(at) !== COMMA) return undefined;
    at = skipSpace(text, at + 1);
  }
}

/** The index after the string starting at `start` (its opening quote); -1 if it never ends. */
function stringEnd(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote >= 0) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/** The index after the non-string value at `start`: an object, an array, a number or a literal. */
function valueEndOf(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let at = start;
    while (at < text.length && !isDelimiter(text.charCodeAt(at))) at++;
    return at > start ? at : -1;
  }
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      at = stringEnd(text, at) - 1;
      if (at < 0) return -1;
    } else if (char === OPEN_OBJECT || char === OPEN_ARRAY) depth++;
    else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      if (--depth === 0) return at + 1;
    }
  }
  return -1;
}

function isDelimiter(char: number): boolean {
  return char === COMMA || char === CLOSE_OBJECT || char === CLOSE_ARRAY || isSpace(char);
}

function isSpace(char: number): boolean {
  return char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09;
}

function skipSpace(text: string, at: number): number {
  while (isSpace(text.charCodeAt(at))) at++;
  return at;
}
