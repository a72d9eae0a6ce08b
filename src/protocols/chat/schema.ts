/**
 * The chat-completions request as far as tollgate needs it (OpenAI
 * `ChatCompletionCreateParams`); every other field passes through untouched.
 */
import { z } from "zod";
import {
  isMessageList,
  isModel,
  isOptionalBoolean,
  isOptionalNonNegativeInt,
  isOptionalObject,
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

/** Whether `ChatRequestSchema` accepts `body`, checked directly. */
export function isChatRequest(body: Record<string, unknown>): body is ChatRequest {
  return isModel(body.model) && isMessageList(body.messages) && isOptionalBoolean(body.stream) &&
    isOptionalObject(body.stream_options) && isOptionalNonNegativeInt(body.max_tokens) &&
    isOptionalNonNegativeInt(body.max_completion_tokens);
}
