/**
 * Regular-expression sources for exact JSON tokens (RFC 8259), from which a decoder
 * builds the pattern of an event it sees thousands of times per stream (a text delta)
 * and reads it without a parse: a text the whole pattern matches is valid JSON and
 * holds just what the pattern says, so its captures are what a parse would give. No
 * whitespace is allowed between tokens: an event written otherwise misses the pattern
 * and is parsed as before. A pattern must let each field match one alternative at most:
 * overlapping ones let a crafted event that fails late backtrack exponentially.
 */

// A character a JSON string holds as it is, and an escape (RFC 8259, section 7).
const PLAIN = String.raw`[^"\\\u0000-\u001f]`;
const ESCAPE = String.raw`\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})`;

/**
 * The content of a JSON string literal, between its quotes: no raw control character,
 * valid escapes. Written as runs of plain characters between escapes, so a long string
 * is one tight loop rather than a backtracking choice per character.
 */
export const STRING_CONTENT = `${PLAIN}*(?:${ESCAPE}${PLAIN}*)*`;

/** A JSON number. */
export const NUMBER = String.raw`-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?`;

/** A JSON string, number, boolean or null. */
export const SCALAR = `(?:"${STRING_CONTENT}"|${NUMBER}|true|false|null)`;

/** One of `texts` exactly, as a non-capturing group (their regex characters escaped). */
export function oneOf(texts: readonly string[]): string {
  return `(?:${texts.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})`;
}

/**
 * A quoted key other than `names`, written without escapes (one with escapes misses).
 * A pattern lists the keys its decoder reads apart, so a repeated key (the last one
 * wins in a parse) cannot hide behind the ones it ignores.
 */
export function keyOtherThan(names: readonly string[]): string {
  return `"(?!${oneOf(names)}")[A-Za-z_][A-Za-z0-9_]*"`;
}
