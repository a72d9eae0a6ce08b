/**
 * The event most of a messages stream is made of, `content_block_delta`, read without
 * a parse when written as the API writes it; one written otherwise is parsed. See
 * ../../protocols/json_shape.ts for why a match is exact.
 */
import { oneOf, STRING_CONTENT } from "../json_shape.ts";
import { unescaped } from "../json_read.ts";

/** A block delta: the block's upstream index, the delta's type and its one string value. */
export interface BlockDelta {
  index: number;
  type: string;
  value: string;
}

/** The field holding each delta type's value ("Streaming Messages", delta types). */
export const VALUE_FIELDS = {
  text_delta: "text",
  thinking_delta: "thinking",
  signature_delta: "signature",
  input_json_delta: "partial_json",
} as const;

/** A block delta's type. */
export type BlockDeltaType = keyof typeof VALUE_FIELDS;

// Each type with its own field, so a type written with another field (read as "") misses.
const TYPE_AND_FIELD = Object.entries(VALUE_FIELDS).map(([type, field]) => `${type}","${field}`);
const BLOCK_DELTA = new RegExp(
  `^\\{"type":"content_block_delta","index":(0|[1-9]\\d{0,8}),"delta":\\{` +
    `"type":"(${oneOf(TYPE_AND_FIELD)})":"(${STRING_CONTENT})"\\}\\}$`,
);

/** The block delta of an event's data, if it is one in the API's own layout; else undefined. */
export function readBlockDelta(data: string): BlockDelta | undefined {
  const match = BLOCK_DELTA.exec(data);
  if (!match) return undefined;
  const typeAndField = match[2]!;
  const type = typeAndField.slice(0, typeAndField.indexOf('"'));
  return { index: Number(match[1]), type, value: unescaped(match[3]!) };
}

/** The value of a parsed delta object: its type's field if a string, else "". */
export function deltaValue(delta: Record<string, unknown>): string {
  const field = typeof delta.type === "string" && Object.hasOwn(VALUE_FIELDS, delta.type)
    ? VALUE_FIELDS[delta.type as BlockDeltaType]
    : undefined;
  const value = field === undefined ? undefined : delta[field];
  return typeof value === "string" ? value : "";
}
