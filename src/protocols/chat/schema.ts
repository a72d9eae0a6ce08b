/**
 * The chat-completions request as far as tollgate needs it (OpenAI
 * `ChatCompletionCreateParams`); every other field passes through untouched.
 */
import { z } from "zod";
import {
  messageList,
  modelField,
  optionalBoolean,
  optionalNonNegativeInt,
  optionalObject,
} from "../schema_fields.ts";

/** Validates a `POST /v1/chat/completions` body loosely. */
export const ChatRequestSchema = z.looseObject({
  model: modelField(),
  messages: messageList(),
  stream: optionalBoolean(),
  stream_options: optionalObject(),
  max_tokens: optionalNonNegativeInt(),
  max_completion_tokens: optionalNonNegativeInt(),
});
/** A validated chat-completions request body. */
export type ChatRequest = z.infer<typeof ChatRequestSchema>;
