/**
 * An HTTP/1.1 head's first line and header fields (RFC 9110 §5, RFC 9112 §5), and what
 * both sides read from them (a Content-Length, whether the connection stays open), as
 * the client reads an upstream's answer and the server a client's request: names
 * lowercase, values without the blanks around them, repeated fields joined with ", ".
 * Scanned by hand rather than with a regular expression a line: every request parses
 * two heads, and each match made an array and two strings more.
 */

/** Which ASCII codes may appear in a field name (an HTTP token, RFC 9110 §5.6.2). */
const TOKEN = new Uint8Array(128);
for (
  const char of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
) {
  TOKEN[char.charCodeAt(0)] = 1;
}
const SPACE = 32;
const TAB = 9;
const COLON = 58;
const UPPER_A = 65;
const UPPER_Z = 90;
const DEL = 0x7f;
/**
 * A control character (tab aside: RFC 9110 §5.5 allows none in a value, and llhttp
 * refuses them), or a CR or LF that is not part of a CRLF.
 */
// deno-lint-ignore no-control-regex -- control characters are what it finds
const FORBIDDEN = /[\0-\x08\x0b\x0c\x0e-\x1f\x7f]|\r(?!\n)|(?<!\r)\n/;
/** Blanks around a value or a list member: spaces and tabs only, never \v or U+00A0 (RFC 9110 §5.6.3). */
const BLANKS = /^[ \t]+|[ \t]+$/g;

/** A field name: an HTTP token (RFC 9110 §5.6.2). */
export const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/**
 * A field value tollgate writes: visible ASCII, spaces and tabs (RFC 9110 §5.5), nothing
 * that ends a line, and one byte a character, so that a head's length is its size.
 */
export const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** Field values are octets: latin1 keeps each one as a character (RFC 9110 §5.5). */
const LATIN1 = new TextDecoder("latin1");
/** A length as Content-Length writes it: 2^49 bytes is beyond any body and exact as a number. */
const DIGITS = /^[0-9]{1,15}$/;

/** Whether a byte is a token character (RFC 9110 §5.6.2): a field name's, a chunk extension's. */
export function isTokenByte(byte: number): boolean {
  return byte < 128 && TOKEN[byte] === 1;
}

/** Whether a byte may appear in a field value as read: tab, space, visible ASCII, obs-text. */
export function isValueByte(byte: number): boolean {
  return byte === TAB || (byte >= SPACE && byte !== DEL);
}

/**
 * The first line and the fields of the head in `bytes[start, end)` (which ends with its
 * blank line); `malformed` makes the error for a bad field line.
 */
export function splitHead(
  bytes: Uint8Array,
  start: number,
  end: number,
  malformed: (line: string) => Error,
): { line: string; headers: Map<string, string> } {
  const text = LATIN1.decode(bytes.subarray(start, end - 4));
  const lineEnd = text.indexOf("\r\n");
  if (lineEnd < 0) return { line: text, headers: new Map() };
  return { line: text.slice(0, lineEnd), headers: parseFields(text, lineEnd + 2, malformed) };
}

/**
 * The length a single Content-Length field says, as llhttp reads one: digits alone; a
 * list, even of one value repeated, is undefined.
 */
export function singleContentLength(value: string): number | undefined {
  return DIGITS.test(value) ? Number(value) : undefined;
}

/**
 * The length a Content-Length field says; repeated identical values ("42, 42") are one
 * (RFC 9112 §6.3), and anything else is undefined.
 */
export function contentLength(value: string): number | undefined {
  if (DIGITS.test(value)) return Number(value);
  const values = new Set(value.split(",").map((part) => part.replace(BLANKS, "")));
  const [only] = values;
  return values.size === 1 && DIGITS.test(only!) ? Number(only) : undefined;
}

/** Whether a message's connection stays open after it: its Connection field, else its version. */
export function keepsConnection(headers: Map<string, string>, version: "1.0" | "1.1"): boolean {
  const connection = headers.get("connection")?.toLowerCase() ?? "";
  if (/(?:^|,)[ \t]*close[ \t]*(?:,|$)/.test(connection)) return false;
  return version === "1.1" || /(?:^|,)[ \t]*keep-alive[ \t]*(?:,|$)/.test(connection);
}

/**
 * The fields of `text` (a head's lines after its first, without the blank line, as
 * latin1 characters) from `from` on; `malformed` makes the error for a bad line.
 */
export function parseFields(
  text: string,
  from: number,
  malformed: (line: string) => Error,
): Map<string, string> {
  const headers = new Map<string, string>();
  // A value has no control character: a bare CR, LF or NUL would let a field end where a
  // reader downstream sees none, and the others are refused by llhttp too (RFC 9110 §5.5).
  // One search of the whole head finds any.
  const bare = text.slice(from).search(FORBIDDEN);
  if (bare >= 0) {
    const lineStart = text.lastIndexOf("\r\n", from + bare - 1);
    const lineEnd = text.indexOf("\r\n", from + bare + 1);
    throw malformed(
      text.slice(lineStart < from ? from : lineStart + 2, lineEnd < 0 ? text.length : lineEnd),
    );
  }
  for (let at = from; at < text.length;) {
    let end = text.indexOf("\r\n", at);
    if (end < 0) end = text.length;
    // The name, up to the colon: token characters, lowercased only when it has capitals.
    let colon = at;
    let capitals = false;
    for (; colon < end; colon++) {
      const code = text.charCodeAt(colon);
      if (code === COLON) break;
      if (code > 127 || TOKEN[code] === 0) throw malformed(text.slice(at, end));
      if (code <= UPPER_Z && code >= UPPER_A) capitals = true;
    }
    if (colon === at || colon === end) throw malformed(text.slice(at, end));
    let start = colon + 1;
    while (start < end && isBlank(text.charCodeAt(start))) start++;
    let stop = end;
    while (stop > start && isBlank(text.charCodeAt(stop - 1))) stop--;
    const name = capitals ? text.slice(at, colon).toLowerCase() : text.slice(at, colon);
    const value = text.slice(start, stop);
    const earlier = headers.get(name);
    headers.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
    at = end + 2;
  }
  return headers;
}

function isBlank(code: number): boolean {
  return code === SPACE || code === TAB;
}
