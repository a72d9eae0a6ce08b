/**
 * The events most of a responses stream is made of, the `*.delta` events of text,
 * refusals, reasoning and tool input, read without a parse when laid out as the API
 * lays them out: `type`, `sequence_number`, `item_id`, `output_index`, the content or
 * summary index, `delta`, then an empty `logprobs` and `obfuscation` (each but `type`,
 * `item_id` and `delta` may be missing). Any other layout is parsed. A fixed layout,
 * rather than any order of any fields, halves the cost of a match. See
 * ../../protocols/json_shape.ts for why a match is exact.
 */
import { oneOf, STRING_CONTENT } from "../json_shape.ts";
import { unescaped } from "../json_read.ts";
import type { OpenKind } from "./stream_parts.ts";

/** The `*.delta` events read here, and the part each streams into ("Responses streaming events"). */
export const DELTA_KINDS = {
  "response.output_text.delta": "text",
  "response.refusal.delta": "refusal",
  "response.reasoning_summary_text.delta": "reasoning",
  "response.reasoning_text.delta": "reasoning",
  "response.function_call_arguments.delta": "tool_call",
  "response.custom_tool_call_input.delta": "tool_call",
} as const satisfies Record<string, OpenKind>;

/** The type of a `*.delta` event read here. */
export type DeltaType = keyof typeof DELTA_KINDS;

/** A delta event: its type, the item it belongs to and the piece of text. */
export interface DeltaEvent {
  type: DeltaType;
  itemId: string;
  delta: string;
}

const DELTA_TYPES = Object.keys(DELTA_KINDS) as DeltaType[];

const INDEX = "(?:0|[1-9]\\d*)";
/**
 * The layout, its fields in a fixed order, each present once or not at all: nothing in it
 * repeats but a string's characters, so a crafted event that fails late is refused in one
 * pass.
 */
export const DELTA_EVENT: RegExp = new RegExp(
  `^\\{"type":"(${oneOf(DELTA_TYPES)})",` +
    `(?:"sequence_number":${INDEX},)?"item_id":"(${STRING_CONTENT})",` +
    `(?:"output_index":${INDEX},)?(?:"(?:content|summary)_index":${INDEX},)?` +
    `"delta":"(${STRING_CONTENT})"(?:,"logprobs":\\[\\])?(?:,"obfuscation":"${STRING_CONTENT}")?\\}$`,
);

/** The delta event of an event's data, if it is one in the API's own layout; else undefined. */
export function readDeltaEvent(data: string): DeltaEvent | undefined {
  const match = DELTA_EVENT.exec(data);
  if (!match) return undefined;
  // The list's own string: a lookup by it is by identity, not by its characters.
  const type = DELTA_TYPES.find((name) => name === match[1])!;
  return { type, itemId: unescaped(match[2]!), delta: unescaped(match[3]!) };
}
