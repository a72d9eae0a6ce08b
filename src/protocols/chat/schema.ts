/**
 * The chat-completions request as far as tollgate needs it (OpenAI
 * `ChatCompletionCreateParams`); every other field passes through untouched.
 */
import {
  messageList,
  model,
  optionalBoolean,
  optionalNonNegativeInt,
  optionalObject,
  type RequestFields,
  type RequestMessage,
} from "../schema_fields.ts";

/** The fields of a `POST /v1/chat/completions` body that tollgate checks. */
export const CHAT_REQUEST_FIELDS: RequestFields = [
  ["model", model],
  ["messages", messageList],
  ["stream", optionalBoolean],
  ["stream_options", optionalObject],
  ["max_tokens", optionalNonNegativeInt],
  ["max_completion_tokens", optionalNonNegativeInt],
];

/** A chat-completions request body that CHAT_REQUEST_FIELDS accept. */
export interface ChatRequest extends Record<string, unknown> {
  model: string;
  messages: RequestMessage[];
  stream?: boolean | null;
  stream_options?: Record<string, unknown> | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
}
