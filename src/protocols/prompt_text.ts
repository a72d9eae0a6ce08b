/**
 * Reading a prompt's text: the helpers each protocol's `promptText` and its conversation's
 * start (`Protocol.conversation`) are built from.
 */
import { asRecord } from "./json_read.ts";
import type { ConversationStart } from "./protocol.ts";
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

/** How a protocol's turns hold their text, and which are the user's. */
export interface TurnShape {
  /** The field of a turn's content: `content`, or Gemini's `parts`. */
  content: string;
  /** Whether a turn of `role` is the user's. */
  isUser(role: unknown): boolean;
}

/** Turns as chat, responses and messages write them: `role` and `content`. */
export const MESSAGE_TURNS: TurnShape = { content: "content", isUser: (role) => role === "user" };

/** Turns read while looking for the first user message (system turns lead it, if any). */
const MAX_LEADING_TURNS = 16;

/**
 * The start of a conversation: the `leading` texts (a system prompt) with the texts of any
 * turns before the first user turn, and that first user turn's texts. `turns` may be a
 * string (a responses `input`): the user's first message itself.
 */
export function conversationStart(
  leading: string[],
  turns: unknown,
  shape: TurnShape = MESSAGE_TURNS,
): ConversationStart {
  const start: ConversationStart = { leading: [...leading], opening: [] };
  if (typeof turns === "string") start.opening = [turns];
  else if (Array.isArray(turns)) {
    for (const turn of turns.slice(0, MAX_LEADING_TURNS)) {
      const record = asRecord(turn);
      if (!record) continue;
      const texts = collectText(record[shape.content]);
      if (shape.isUser(record.role)) {
        start.opening = texts;
        break;
      }
      start.leading.push(...texts);
    }
  }
  return start;
}
