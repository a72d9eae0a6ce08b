/**
 * The zod schemas of the entry-protocol request fields tollgate reads. Each schema's
 * message is the plain-English expectation ("a boolean"), so that an error sentence can
 * name the field and what it must be. An envelope is a `z.object` of these fields: zod
 * reads only the keys it names, whatever else the body holds, and never descends into a
 * field it does not check (a message's content, a tool's parameters).
 */
import * as z from "zod/mini";
import { asRecord } from "./json_read.ts";

/** The largest token limit accepted: a 32-bit count, far above any model's, and safe to store. */
export const MAX_TOKEN_LIMIT = 2_147_483_647;

/** What a request body must be before any field is read. */
export const BODY_EXPECTED = "a JSON object";

/** `schema`, with `null` and absence accepted too (the OpenAI API reads `null` as absent). */
export function nullish<S extends z.ZodMiniType>(schema: S) {
  return z.nullish(schema);
}

const MODEL_EXPECTED = { error: "a non-empty string naming the model" };

/** `model`: the model id the client asks for. */
export const model = z.string(MODEL_EXPECTED).check(z.minLength(1, MODEL_EXPECTED));

/** An optional flag such as `stream`. */
export const optionalBoolean = nullish(z.boolean({ error: "a boolean" }));

/** An optional object such as `stream_options`; its keys are not read. */
export const optionalObject = nullish(z.object({}, { error: "an object" }));

/** An optional token limit that may be zero (OpenAI accepts `max_tokens: 0`). */
export const optionalNonNegativeInt = nullish(tokenLimit(0));

/** A token limit that must be present and at least 1, such as messages' `max_tokens`. */
export const positiveInt = tokenLimit(1);

/**
 * A string or an array, as responses' `input` and (null too) messages' `system` may be;
 * the array's items are not read here.
 */
export function stringOrArray(expected: string) {
  return z.custom<string | unknown[]>(
    (value) => typeof value === "string" || Array.isArray(value),
    { error: expected },
  );
}

/** A message of a conversation that `messageList` accepts: a string `role`, the rest as sent. */
export interface RequestMessage {
  role: string;
  [field: string]: unknown;
}

/** One message of a conversation: an object with a string `role`; the rest is not read. */
export const MessageSchema = z.object(
  { role: z.string({ error: "a string" }) },
  { error: "an object" },
);

/**
 * What MessageSchema accepts, tested without zod: a body of `max_body_bytes` can hold
 * hundreds of thousands of messages, and zod's walk over them allocates for each where
 * this loop does not. zod still words the fault of
 * the first message this refuses; schema_fields_test checks that the two agree.
 */
export function isMessage(value: unknown): boolean {
  return typeof asRecord(value)?.role === "string";
}

/**
 * A non-empty conversation of messages. Only the first message at fault is reported:
 * a client fixes one at a time, and a million bad items must not make a million issues.
 */
export const messageList = z.custom<RequestMessage[]>(
  (value) => Array.isArray(value) && value.length > 0,
  { error: "a non-empty array of messages" },
).check(z.check((payload) => {
  const messages = payload.value;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (isMessage(message)) continue;
    for (const issue of MessageSchema.safeParse(message).error?.issues ?? []) {
      payload.issues.push({
        code: "custom",
        message: issue.message,
        path: [index, ...issue.path],
        input: message,
      });
    }
    return;
  }
}));

/** A token count from `least`: one message for every way a value can fail it. */
function tokenLimit(least: number) {
  const expected = { error: `an integer from ${least} to ${MAX_TOKEN_LIMIT}` };
  return z.int(expected).check(
    z.minimum(least, expected),
    z.maximum(MAX_TOKEN_LIMIT, expected),
  );
}
