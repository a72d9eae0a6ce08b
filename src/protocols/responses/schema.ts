/**
 * The responses request as far as tollgate reads it (OpenAI `ResponseCreateParams`);
 * every other field passes through untouched.
 */
import * as z from "zod/mini";
import {
  BODY_EXPECTED,
  model,
  optionalBoolean,
  optionalNonNegativeInt,
  stringOrArray,
} from "../schema_fields.ts";

/** The fields of a `POST /v1/responses` body that tollgate reads, in the order faults are told. */
export const ResponsesRequestSchema = z.object({
  model,
  input: stringOrArray("a string or an array of input items"),
  stream: optionalBoolean,
  max_output_tokens: optionalNonNegativeInt,
}, { error: BODY_EXPECTED });
/** What tollgate reads of a responses request. */
export type ResponsesRequest = z.output<typeof ResponsesRequestSchema>;
