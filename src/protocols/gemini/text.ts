/** Text in the Gemini protocol: the prompt's, and what an upstream produced. */
import { asRecord, fields, keyedStrings, listOf, parseEventData, stringOr } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { PromptText } from "../types.ts";
import { field, objectField } from "./fields.ts";

/**
 * The prompt text of a request: the system instruction, then every content's text parts
 * and function responses; the last user content's text parts are the last user text.
 */
export function promptText(body: Record<string, unknown>): PromptText {
  const texts = partTexts(objectField(body, "systemInstruction")?.parts);
  let lastUserText = "";
  for (const value of listOf(body.contents)) {
    const content = asRecord(value);
    if (!content) continue;
    const own: string[] = [];
    for (const part of listOf(content.parts)) {
      const record = asRecord(part);
      if (typeof record?.text === "string") own.push(record.text);
      else {
        const response = objectField(record, "functionResponse");
        if (response) texts.push(JSON.stringify(field(response, "response") ?? {}));
      }
    }
    texts.push(...own);
    // A content without a role is the user's (the API's default for a single turn).
    if (content.role === undefined || content.role === "user") {
      if (own.length > 0 || !hasFunctionResponse(content)) lastUserText = own.join("\n");
    }
  }
  return { texts, lastUserText };
}

function partTexts(parts: unknown): string[] {
  return listOf(parts).flatMap((part) => {
    const text = asRecord(part)?.text;
    return typeof text === "string" ? [text] : [];
  });
}

function hasFunctionResponse(content: Record<string, unknown>): boolean {
  return listOf(content.parts).some((part) => objectField(asRecord(part), "functionResponse"));
}

/** The text of a response or chunk: every candidate's text (thoughts too) and call arguments. */
export function responseText(json: unknown): string {
  let text = "";
  for (const candidate of listOf(fields(json).candidates)) {
    for (const part of listOf(fields(fields(candidate).content).parts)) {
      const record = fields(part);
      text += stringOr(record.text);
      const call = asRecord(record.functionCall);
      if (call) text += JSON.stringify(call.args ?? {});
    }
  }
  return text;
}

/** A chunk's text parts, read without a parse. */
const chunkText = keyedStrings(["text"]);

/** The text of one stream chunk; a chunk with a function call is parsed for its arguments. */
export function eventText(event: SseEvent): string {
  if (!event.data.includes('"functionCall"')) return chunkText(event.data);
  return responseText(parseEventData(event.data));
}
