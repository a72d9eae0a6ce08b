/**
 * The responses request as far as tollgate needs it (OpenAI `ResponseCreateParams`);
 * every other field passes through untouched.
 */
import { z } from "zod";
import {
  isModel,
  isOptionalBoolean,
  isOptionalNonNegativeInt,
  isStringOrArray,
  modelField,
  optionalBoolean,
  optionalNonNegativeInt,
} from "../schema_fields.ts";

/** Validates a `POST /v1/responses` body loosely. */
export const ResponsesRequestSchema = z.looseObject({
  model: modelField(),
  input: z.union([z.string(), z.array(z.unknown())], {
    error: "a string or an array of input items",
  }),
  stream: optionalBoolean(),
  max_output_tokens: optionalNonNegativeInt(),
});
/** A validated responses request body. */
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

/** Whether `ResponsesRequestSchema` accepts `body`, checked directly. */
export function isResponsesRequest(body: Record<string, unknown>): body is ResponsesRequest {
  return isModel(body.model) && isStringOrArray(body.input) && isOptionalBoolean(body.stream) &&
    isOptionalNonNegativeInt(body.max_output_tokens);
}
