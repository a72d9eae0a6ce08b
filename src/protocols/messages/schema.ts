/**
 * The messages request as far as tollgate needs it (Anthropic `MessageCreateParams`);
 * every other field passes through untouched.
 */
import { z } from "zod";
import {
  isMessageList,
  isModel,
  isOptionalBoolean,
  isPositiveInt,
  isStringOrArray,
  messageList,
  modelField,
  optionalBoolean,
  positiveInt,
} from "../schema_fields.ts";

const system = z.union([z.string(), z.array(z.unknown())], {
  error: "a string or an array of text blocks",
}).nullish();

/** Validates a `POST /v1/messages` body loosely. */
export const MessagesRequestSchema = z.looseObject({
  model: modelField(),
  messages: messageList(),
  max_tokens: positiveInt(),
  stream: optionalBoolean(),
  system,
});
/** A validated messages request body. */
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

/** Whether `MessagesRequestSchema` accepts `body`, checked directly. */
export function isMessagesRequest(body: Record<string, unknown>): body is MessagesRequest {
  return isModel(body.model) && isMessageList(body.messages) && isPositiveInt(body.max_tokens) &&
    isOptionalBoolean(body.stream) && (body.system == null || isStringOrArray(body.system));
}

/** Validates a `POST /v1/messages/count_tokens` body loosely. */
export const CountTokensBodySchema = z.looseObject({
  model: modelField(),
  messages: messageList(),
  system,
});
/** A validated count_tokens request body. */
export type CountTokensBody = z.infer<typeof CountTokensBodySchema>;
