/**
 * The messages request as far as tollgate reads it (Anthropic `MessageCreateParams`);
 * every other field passes through untouched.
 */
import * as z from "zod/mini";
import {
  BODY_EXPECTED,
  messageList,
  model,
  nullish,
  optionalBoolean,
  positiveInt,
  stringOrArray,
} from "../schema_fields.ts";

const system = nullish(stringOrArray("a string or an array of text blocks"));

/** The fields of a `POST /v1/messages` body that tollgate reads, in the order faults are told. */
export const MessagesRequestSchema = z.object({
  model,
  messages: messageList,
  max_tokens: positiveInt,
  stream: optionalBoolean,
  system,
}, { error: BODY_EXPECTED });
/** What tollgate reads of a messages request. */
export type MessagesRequest = z.output<typeof MessagesRequestSchema>;

/** The fields of a `POST /v1/messages/count_tokens` body that tollgate reads. */
export const CountTokensRequestSchema = z.object({
  model,
  messages: messageList,
  system,
}, { error: BODY_EXPECTED });
/** What tollgate reads of a count_tokens request. */
export type CountTokensBody = z.output<typeof CountTokensRequestSchema>;
