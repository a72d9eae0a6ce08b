/**
 * The responses request as far as tollgate needs it (OpenAI `ResponseCreateParams`);
 * every other field passes through untouched.
 */
import {
  model,
  optionalBoolean,
  optionalNonNegativeInt,
  type RequestFields,
  stringOrArray,
} from "../schema_fields.ts";

/** The fields of a `POST /v1/responses` body that tollgate checks. */
export const RESPONSES_REQUEST_FIELDS: RequestFields = [
  ["model", model],
  ["input", stringOrArray("a string or an array of input items")],
  ["stream", optionalBoolean],
  ["max_output_tokens", optionalNonNegativeInt],
];

/** A responses request body that RESPONSES_REQUEST_FIELDS accept. */
export interface ResponsesRequest extends Record<string, unknown> {
  model: string;
  input: string | unknown[];
  stream?: boolean | null;
  max_output_tokens?: number | null;
}
