/**
 * Reading tiktoken's rank files: one token a line, its bytes in base64, a space and its
 * rank.
 */

/** Base64's alphabet, by character code: the value of each digit, -1 for any other. */
const BASE64 = new Int8Array(128).fill(-1);
for (
  const [i, char] of [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"]
    .entries()
) {
  BASE64[char.charCodeAt(0)] = i;
}

const NEWLINE = 10;
const SPACE = 32;
const EQUALS = 61;

/**
 * Calls `token` with each line's token, its bytes decoded into `bytes[0, length)` (a
 * buffer reused from line to line), and its rank. Throws on a line that is not so.
 */
export function forEachToken(
  file: Uint8Array,
  token: (bytes: Uint8Array, length: number, rank: number) => void,
): void {
  let bytes = new Uint8Array(256);
  for (let at = 0; at < file.length;) {
    // One scan finds the line's space and its end (`indexOf`'s calls cost more, twice a line).
    let space = -1;
    let end = at;
    for (; end < file.length && file[end] !== NEWLINE; end++) {
      if (space < 0 && file[end] === SPACE) space = end;
    }
    if (end > at) {
      if (space <= at || space >= end - 1) throw malformed(file, at, end);
      const size = decodedLength(file, at, space);
      if (size > bytes.length) bytes = new Uint8Array(size);
      token(bytes, decodeBase64(file, at, space, bytes, 0), decimal(file, space + 1, end));
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
