/** Text in the chat-completions protocol: the prompt's, and what an upstream produced. */
import { fields, keyedStrings, listOf, stringOr } from "../json_read.ts";
import { promptOfMessages } from "../prompt_text.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { PromptText } from "../types.ts";

/** The prompt text of a chat request: its messages, system messages included. */
export function promptText(body: Record<string, unknown>): PromptText {
  return promptOfMessages([], body.messages);
}

/** Text, reasoning and tool arguments of a message or a delta. */
function producedText(message: Record<string, unknown>): string {
  return stringOr(message.content) + stringOr(message.reasoning_content) +
    stringOr(message.reasoning) +
    listOf(message.tool_calls).map((call) => stringOr(fields(fields(call).function).arguments))
      .join("");
}

/** The text of a `chat.completion` body. */
export function responseText(json: unknown): string {
  return listOf(fields(json).choices).map((choice) => producedText(fields(fields(choice).message)))
    .join("");
}

/** The text of one `chat.completion.chunk`: the fields `producedText` reads, from its deltas. */
const chunkText = keyedStrings(["content", "reasoning_content", "reasoning", "arguments"]);

/** The text of one `chat.completion.chunk`. */
export function eventText(event: SseEvent): string {
  return chunkText(event.data);
}
