/**
 * The header fields of an HTTP/1.1 head (RFC 9110 §5, RFC 9112 §5), as both the client
 * reads an upstream's answer and the server a client's request: names lowercase, values
 * without the blanks around them, repeated fields joined with ", ". Scanned by hand
 * rather than with a regular expression a line: every request parses two heads, and
 * each match made an array and two strings more.
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
  for (let at = from; at < text.length;) {
    let end = text.indexOf("\r\n", at);
    if (end < 0) end = text.length;
    const colon = text.indexOf(":", at);
    if (colon <= at || colon > end) throw malformed(text.slice(at, end));
    for (let i = at; i < colon; i++) {
      const code = text.charCodeAt(i);
      if (code > 127 || TOKEN[code] === 0) throw malformed(text.slice(at, end));
    }
    let start = colon + 1;
    while (start < end && isBlank(text.charCodeAt(start))) start++;
    let stop = end;
    while (stop > start && isBlank(text.charCodeAt(stop - 1))) stop--;
    // A value has no CR, LF or NUL: a bare one would let a field end where a reader
    // downstream sees none (RFC 9110 §5.5).
    for (let i = start; i < stop; i++) {
      const code = text.charCodeAt(i);
      if (code === 0 || code === 10 || code === 13) throw malformed(text.slice(at, end));
    }
    const name = text.slice(at, colon).toLowerCase();
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
