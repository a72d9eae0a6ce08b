/** Reading a prompt's text: the helpers each protocol's `promptText` is built from. */
import { asRecord } from "./json_read.ts";
import type { PromptText } from "./types.ts";

/**
 * The prompt text of leading texts (system, instructions) followed by messages whose
 * text sits in `content` (or `output`, for responses tool results).
 */
export function promptOfMessages(leading: string[], messages: unknown): PromptText {
  const texts = [...leading];
  let lastUserText = "";
  if (!Array.isArray(messages)) return { texts, lastUserText };
  for (const message of messages) {
    const record = asRecord(message);
    if (!record) continue;
    const own = collectText(record.content ?? record.output);
    texts.push(...own);
    if (record.role === "user") lastUserText = own.join("\n");
  }
  return { texts, lastUserText };
}

const MAX_CONTENT_DEPTH = 8;

/**
 * The texts of content: a string, or blocks whose text sits in `text` (text,
 * input_text, output_text) or nested in `content` (tool results); other blocks (images,
 * tool calls) carry no text.
 */
export function collectText(content: unknown, depth = 0): string[] {
  if (typeof content === "string") return [content];
  // Real content nests a level or two (tool results); a deeper client body is not followed.
  if (!Array.isArray(content) || depth > MAX_CONTENT_DEPTH) return [];
  const texts: string[] = [];
  for (const block of content) {
    if (typeof block === "string") {
      texts.push(block);
      continue;
    }
    const record = asRecord(block);
    if (typeof record?.text === "string") texts.push(record.text);
    else if (record?.content !== undefined) texts.push(...collectText(record.content, depth + 1));
  }
  return texts;
}
