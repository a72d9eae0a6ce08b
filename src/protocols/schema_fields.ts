/**
 * The rules of the entry-protocol request fields tollgate reads. A rule checks a value
 * and, when it refuses it, says where (a path below the field) and what it expected in
 * plain English ("a boolean"), so one piece of code both accepts a request and words
 * the error of one it refuses. Every other field passes through unchecked.
 */
import { asRecord } from "./json_read.ts";

/** A path into a request body, as an API error names it: `["messages", 0, "role"]`. */
export type FieldPath = readonly (string | number)[];

/** Where a rule refused a value (below the field) and what it expected there. */
export interface Fault {
  path: FieldPath;
  expected: string;
}

/** A field's rule: undefined when it accepts the value, else the fault. */
export type FieldRule = (value: unknown) => Fault | undefined;

/** The fields of a request, in the order a client is told of their faults. */
export type RequestFields = readonly (readonly [name: string, rule: FieldRule])[];

/** The largest token limit accepted: a 32-bit count, far above any model's, and safe to store. */
export const MAX_TOKEN_LIMIT = 2_147_483_647;

/** The rule accepting what `accepts` does, expecting `expected`. */
function rule(expected: string, accepts: (value: unknown) => boolean): FieldRule {
  const fault: Fault = { path: [], expected };
  return (value) => accepts(value) ? undefined : fault;
}

/** `inner`, with `null` and absence accepted too (the OpenAI API reads `null` as absent). */
export function nullish(inner: FieldRule): FieldRule {
  return (value) => value == null ? undefined : inner(value);
}

function isTokenLimit(value: unknown, least: number): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= least &&
    value <= MAX_TOKEN_LIMIT;
}

/** `model`: the model id the client asks for. */
export const model = rule(
  "a non-empty string naming the model",
  (value) => typeof value === "string" && value.length > 0,
);

/** An optional flag such as `stream`. */
export const optionalBoolean = nullish(rule("a boolean", (value) => typeof value === "boolean"));

/** An optional object such as `stream_options`. */
export const optionalObject = nullish(rule("an object", (value) => asRecord(value) !== undefined));

/** An optional token limit that may be zero (OpenAI accepts `max_tokens: 0`). */
export const optionalNonNegativeInt = nullish(
  rule(`an integer from 0 to ${MAX_TOKEN_LIMIT}`, (value) => isTokenLimit(value, 0)),
);

/** A token limit that must be present and at least 1, such as messages' `max_tokens`. */
export const positiveInt = rule(
  `an integer from 1 to ${MAX_TOKEN_LIMIT}`,
  (value) => isTokenLimit(value, 1),
);

/** A string or an array, as responses' `input` and (null too) messages' `system` may be. */
export function stringOrArray(expected: string): FieldRule {
  return rule(expected, (value) => typeof value === "string" || Array.isArray(value));
}

/** A message of a conversation that `messageList` accepts: a string `role`, the rest as sent. */
export interface RequestMessage {
  role: string;
  [field: string]: unknown;
}

const MESSAGE_LIST = "a non-empty array of messages";
const NOT_A_LIST: Fault = { path: [], expected: MESSAGE_LIST };

/** A non-empty conversation: objects with a string `role`, everything else passed through. */
export const messageList: FieldRule = (value) => {
  if (!Array.isArray(value) || value.length === 0) return NOT_A_LIST;
  for (let i = 0; i < value.length; i++) {
    const message = asRecord(value[i]);
    if (message === undefined) return { path: [i], expected: "an object" };
    if (typeof message.role !== "string") return { path: [i, "role"], expected: "a string" };
  }
  return undefined;
};

/** The first fault of `body` against `fields`, its path from the body; undefined when valid. */
export function firstFault(
  body: Record<string, unknown>,
  fields: RequestFields,
): Fault | undefined {
  for (const [name, check] of fields) {
    const fault = check(body[name]);
    if (fault) return { path: [name, ...fault.path], expected: fault.expected };
  }
  return undefined;
}
