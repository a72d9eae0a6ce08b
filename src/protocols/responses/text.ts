/** Text in the responses protocol: the prompt's, and what an upstream produced. */
import { fields, keyedStrings, listOf, stringOr } from "../json_read.ts";
import { collectText, promptOfMessages } from "../prompt_text.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { PromptText } from "../types.ts";

/** The prompt text of a responses request: instructions, then the input (string or items). */
export function promptText(body: Record<string, unknown>): PromptText {
  const instructions = collectText(body.instructions);
  if (typeof body.input === "string") {
    return { texts: [...instructions, body.input], lastUserText: body.input };
  }
  return promptOfMessages(instructions, body.input);
}

/** The text of a `response` body: message text, function arguments, reasoning summaries. */
export function responseText(json: unknown): string {
  return listOf(fields(json).output).map((item) => {
    const output = fields(item);
    return stringOr(output.arguments) + stringOr(output.input) +
      listOf(output.content).map((part) => stringOr(fields(part).text)).join("") +
      listOf(output.summary).map((part) => stringOr(fields(part).text)).join("");
  }).join("");
}

/** A `*.delta` event's piece of text. */
const deltaText = keyedStrings(["delta"]);

/** The text of one stream event: every `*.delta` event carries its piece in `delta`. */
export function eventText(event: SseEvent): string {
  if (event.event !== undefined && !event.event.endsWith(".delta")) return "";
  return deltaText(event.data);
}
