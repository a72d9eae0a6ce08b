/**
 * The text of a request's prompt, in any entry protocol: what the echo channel answers
 * with and what token estimates count when an upstream reports no usage.
 */
import { countTokens } from "gpt-tokenizer";
import type { EntryProtocol } from "../config/schema.ts";
import { asRecord } from "./json_read.ts";

/** The text found in a request's prompt. */
export interface PromptText {
  /** Every text of the prompt in order: system, instructions, messages, tool results. */
  texts: string[];
  /** The text of the last user message (its text parts joined by newlines), or "". */
  lastUserText: string;
}

/** Collects the prompt text of a request body; unknown shapes contribute nothing. */
export function promptText(protocol: EntryProtocol, body: Record<string, unknown>): PromptText {
  const texts: string[] = [];
  let lastUserText = "";
  const addMessage = (message: unknown) => {
    const record = asRecord(message);
    if (!record) return;
    const own = collectText(record.content ?? record.output);
    texts.push(...own);
    if (record.role === "user") lastUserText = own.join("\n");
  };
  if (protocol === "responses") {
    texts.push(...collectText(body.instructions));
    if (typeof body.input === "string") {
      texts.push(body.input);
      lastUserText = body.input;
    } else if (Array.isArray(body.input)) body.input.forEach(addMessage);
  } else {
    if (protocol === "messages") texts.push(...collectText(body.system));
    if (Array.isArray(body.messages)) body.messages.forEach(addMessage);
  }
  return { texts, lastUserText };
}

/** Counts the tokens of a text (o200k_base), treating special-token markers as plain text. */
export function countTextTokens(text: string): number {
  // The default would throw on "<|endoftext|>" in user text; a count must never throw.
  return countTokens(text, { disallowedSpecial: new Set() });
}

/** Counts the tokens of a prompt's texts, joined by newlines. */
export function countPromptTokens(prompt: PromptText): number {
  return countTextTokens(prompt.texts.join("\n"));
}

// Content is a string, or blocks whose text sits in `text` (text, input_text, output_text)
// or nested in `content` (tool results); other blocks (images, tool calls) carry no text.
function collectText(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const block of content) {
    if (typeof block === "string") {
      texts.push(block);
      continue;
    }
    const record = asRecord(block);
    if (typeof record?.text === "string") texts.push(record.text);
    else if (record?.content !== undefined) texts.push(...collectText(record.content));
  }
  return texts;
}
