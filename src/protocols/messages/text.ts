/** Text in the messages protocol: the prompt's, and what an upstream produced. */
import { fields, keyedStrings, listOf, stringOr } from "../json_read.ts";
import { collectText, promptOfMessages } from "../prompt_text.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { PromptText } from "../types.ts";

/** The prompt text of a messages request: the system prompt, then the messages. */
export function promptText(body: Record<string, unknown>): PromptText {
  return promptOfMessages(collectText(body.system), body.messages);
}

/** The text of a `message` body: text, thinking and tool inputs. */
export function responseText(json: unknown): string {
  return listOf(fields(json).content).map((block) => {
    const content = fields(block);
    return stringOr(content.text) + stringOr(content.thinking) +
      (content.input === undefined ? "" : JSON.stringify(content.input));
  }).join("");
}

/** A delta's text, tool input or thinking (the block types whose deltas carry text). */
const deltaText = keyedStrings(["text", "partial_json", "thinking"]);

/** The text of one `content_block_delta` event. */
export function eventText(event: SseEvent): string {
  if (event.event !== undefined && event.event !== "content_block_delta") return "";
  return deltaText(event.data);
}
