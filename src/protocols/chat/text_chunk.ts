/**
 * The chunk most of a chat stream is made of, one choice whose delta holds text and
 * nothing else the decoder acts on once the stream started (its id and model come from
 * the first chunk), read without a parse: a full `JSON.parse` of every chunk was most of
 * a translated stream's cost. The pattern admits fields the decoder ignores
 * (`system_fingerprint`, `obfuscation`, `logprobs`, `role`, a null `usage`) in any order,
 * and the fields it reads only when they are empty or null; a chunk that misses it is
 * parsed. See ../../protocols/json_shape.ts for why a match is exact.
 */
import { keyOtherThan, oneOf, SCALAR, STRING_CONTENT } from "../json_shape.ts";
import { unescaped } from "../json_read.ts";

/** The delta fields the decoder reads besides `content`. */
const READ = [
  "reasoning_content",
  "reasoning",
  "reasoning_details",
  "refusal",
  "tool_calls",
  "function_call",
];

/**
 * The fields the pattern lets each object hold beside the one it reads (`choices`, `delta`,
 * `content`), as alternatives. A field matches one alternative at most, and never the field
 * read: alternatives that overlap would let a crafted chunk that fails late try every way of
 * splitting it (exponential backtracking).
 */
export const FIELDS = {
  // The chunk's own fields: `usage` and `error` only as null, since otherwise they are read.
  chunk: [`${keyOtherThan(["choices", "usage", "error"])}:${SCALAR}`, `"(?:usage|error)":null`],
  // The choice's fields: index 0 (or none), no finish reason, the rest is not read.
  choice: [
    `"index":0`,
    `"finish_reason":null`,
    `${keyOtherThan(["index", "delta", "finish_reason"])}:${SCALAR}`,
  ],
  // The delta's other fields: those not read, and those read when they are empty.
  delta: [`${keyOtherThan(["content", ...READ])}:${SCALAR}`, `"${oneOf(READ)}":(?:null|""|\\[\\])`],
} as const;

const TOP = `(?:${FIELDS.chunk.join("|")})`;
const CHOICE = `(?:${FIELDS.choice.join("|")})`;
const DELTA = `(?:${FIELDS.delta.join("|")})`;
const TEXT_CHUNK = new RegExp(
  `^\\{(?:${TOP},)*"choices":\\[\\{(?:${CHOICE},)*"delta":\\{(?:${DELTA},)*` +
    `"content":"(${STRING_CONTENT})"(?:,${DELTA})*\\}(?:,${CHOICE})*\\}\\](?:,${TOP})*\\}$`,
);

/** The text of a chunk that carries text and nothing else the decoder reads; else undefined. */
export function textOfChunk(data: string): string | undefined {
  const match = TEXT_CHUNK.exec(data);
  return match ? unescaped(match[1]!) : undefined;
}
