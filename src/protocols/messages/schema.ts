/**
 * The messages request as far as tollgate needs it (Anthropic `MessageCreateParams`);
 * every other field passes through untouched.
 */
import {
  messageList,
  model,
  nullish,
  optionalBoolean,
  positiveInt,
  type RequestFields,
  type RequestMessage,
  stringOrArray,
} from "../schema_fields.ts";

const system = nullish(stringOrArray("a string or an array of text blocks"));

/** The fields of a `POST /v1/messages` body that tollgate checks. */
export const MESSAGES_REQUEST_FIELDS: RequestFields = [
  ["model", model],
  ["messages", messageList],
  ["max_tokens", positiveInt],
  ["stream", optionalBoolean],
  ["system", system],
];

/** A messages request body that MESSAGES_REQUEST_FIELDS accept. */
export interface MessagesRequest extends Record<string, unknown> {
  model: string;
  messages: RequestMessage[];
  max_tokens: number;
  stream?: boolean | null;
  system?: string | unknown[] | null;
}

/** The fields of a `POST /v1/messages/count_tokens` body that tollgate checks. */
export const COUNT_TOKENS_FIELDS: RequestFields = [
  ["model", model],
  ["messages", messageList],
  ["system", system],
];

/** A count_tokens request body that COUNT_TOKENS_FIELDS accept. */
export interface CountTokensBody extends Record<string, unknown> {
  model: string;
  messages: RequestMessage[];
  system?: string | unknown[] | null;
}
