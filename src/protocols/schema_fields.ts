/**
 * Zod field rules shared by the entry-protocol schemas. Each rule's issue message is the
 * plain-English expectation ("a boolean"), so an error sentence can name field and rule.
 */
import { z } from "zod";

function rule(description: string) {
  return { error: description };
}

/** `model`: the model id the client asks for. */
export function modelField() {
  const expected = rule("a non-empty string naming the model");
  return z.string(expected).min(1, expected);
}

/** An optional flag such as `stream`; `null` reads as absent, as the OpenAI API allows. */
export function optionalBoolean() {
  return z.boolean(rule("a boolean")).nullish();
}

/** An optional object such as `stream_options`. */
export function optionalObject() {
  return z.record(z.string(), z.unknown(), rule("an object")).nullish();
}

/** The largest token limit accepted: a 32-bit count, far above any model's, and safe to store. */
export const MAX_TOKEN_LIMIT = 2_147_483_647;

/** An optional token limit that may be zero (OpenAI accepts `max_tokens: 0`). */
export function optionalNonNegativeInt() {
  const expected = rule(`an integer from 0 to ${MAX_TOKEN_LIMIT}`);
  return z.number(expected).int(expected).min(0, expected).max(MAX_TOKEN_LIMIT, expected)
    .nullish();
}

/** A token limit that must be present and at least 1, such as messages' `max_tokens`. */
export function positiveInt() {
  const expected = rule(`an integer from 1 to ${MAX_TOKEN_LIMIT}`);
  return z.number(expected).int(expected).min(1, expected).max(MAX_TOKEN_LIMIT, expected);
}

/** A non-empty conversation: objects with a string `role`, everything else passed through. */
export function messageList() {
  const expected = rule("a non-empty array of messages");
  const message = z.looseObject({ role: z.string(rule("a string")) }, rule("an object"));
  return z.array(message, expected).min(1, expected);
}
