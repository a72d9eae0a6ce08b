/**
 * The chat-completions request as far as tollgate reads it (OpenAI
 * `ChatCompletionCreateParams`); every other field passes through untouched.
 */
import * as z from "zod/mini";
import {
  BODY_EXPECTED,
  messageList,
  model,
  optionalBoolean,
  optionalNonNegativeInt,
  optionalObject,
} from "../schema_fields.ts";

/** The fields of a `POST /v1/chat/completions` body that tollgate reads, in the order faults are told. */
export const ChatRequestSchema = z.object({
  model,
  messages: messageList,
  stream: optionalBoolean,
  stream_options: optionalObject,
  max_tokens: optionalNonNegativeInt,
  max_completion_tokens: optionalNonNegativeInt,
}, { error: BODY_EXPECTED });
/** What tollgate reads of a chat-completions request. */
export type ChatRequest = z.output<typeof ChatRequestSchema>;
