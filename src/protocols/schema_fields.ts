/**
 * Zod field rules shared by the entry-protocol schemas. Each rule's issue message is the
 * plain-English expectation ("a boolean"), so an error sentence can name field and rule.
 * Beside each rule, the same rule as a plain check: a request is checked with those
 * (zod walking every message of a long conversation cost more than the rest of its
 * parse), and the schema runs only to word the error of a request they refuse.
 */
import { z } from "zod";
import { asRecord } from "./json_read.ts";

function rule(description: string) {
  return { error: description };
}

/** `model`: the model id the client asks for. */
export function modelField() {
  const expected = rule("a non-empty string naming the model");
  return z.string(expected).min(1, expected);
}

/** What `modelField()` accepts. */
export function isModel(value: unknown): boolean {
  return typeof value === "string" && value.length > 0;
}

/** An optional flag such as `stream`; `null` reads as absent, as the OpenAI API allows. */
export function optionalBoolean() {
  return z.boolean(rule("a boolean")).nullish();
}

/** What `optionalBoolean()` accepts. */
export function isOptionalBoolean(value: unknown): boolean {
  return value == null || typeof value === "boolean";
}

/** An optional object such as `stream_options`. */
export function optionalObject() {
  return z.record(z.string(), z.unknown(), rule("an object")).nullish();
}

/** What `optionalObject()` accepts. */
export function isOptionalObject(value: unknown): boolean {
  return value == null || asRecord(value) !== undefined;
}

/** The largest token limit accepted: a 32-bit count, far above any model's, and safe to store. */
export const MAX_TOKEN_LIMIT = 2_147_483_647;

/** An optional token limit that may be zero (OpenAI accepts `max_tokens: 0`). */
export function optionalNonNegativeInt() {
  const expected = rule(`an integer from 0 to ${MAX_TOKEN_LIMIT}`);
  return z.number(expected).int(expected).min(0, expected).max(MAX_TOKEN_LIMIT, expected)
    .nullish();
}

/** What `optionalNonNegativeInt()` accepts. */
export function isOptionalNonNegativeInt(value: unknown): boolean {
  return value == null || isTokenLimit(value, 0);
}

/** A token limit that must be present and at least 1, such as messages' `max_tokens`. */
export function positiveInt() {
  const expected = rule(`an integer from 1 to ${MAX_TOKEN_LIMIT}`);
  return z.number(expected).int(expected).min(1, expected).max(MAX_TOKEN_LIMIT, expected);
}

/** What `positiveInt()` accepts. */
export function isPositiveInt(value: unknown): boolean {
  return isTokenLimit(value, 1);
}

/** A non-empty conversation: objects with a string `role`, everything else passed through. */
export function messageList() {
  const expected = rule("a non-empty array of messages");
  const message = z.looseObject({ role: z.string(rule("a string")) }, rule("an object"));
  return z.array(message, expected).min(1, expected);
}

/** What `messageList()` accepts. */
export function isMessageList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  for (const message of value) {
    if (typeof asRecord(message)?.role !== "string") return false;
  }
  return true;
}

/** A string or an array, as `system` (null too) and responses' `input` may be. */
export function isStringOrArray(value: unknown): boolean {
  return typeof value === "string" || Array.isArray(value);
}

function isTokenLimit(value: unknown, least: number): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= least &&
    value <= MAX_TOKEN_LIMIT;
}
