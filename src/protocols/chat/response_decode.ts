/**
 * A chat-completions upstream's whole answer (OpenAI `ChatCompletion`) as an IR
 * response, tolerant of what compatible servers add or leave out: reasoning as
 * `reasoning_content`, `reasoning` or `reasoning_details`; Mistral's content arrays with
 * `thinking` parts; vLLM's `stop_reason` naming the stop sequence; legacy `function_call`.
 */
import { asRecord, fields, listOf, stringOr } from "../json_read.ts";
import { usageFromResponse } from "./usage.ts";
import type { IrAssistantPart, IrResponse, IrToolCall } from "../../translate/ir.ts";
import { finishOfChat } from "./finish.ts";
import { argumentsText } from "./messages_decode.ts";
import { reasoningOfMessage } from "./reasoning_details.ts";

/** Decodes a `chat.completion` body (only its first choice: translation asks for one). */
export function decodeChatResponse(json: unknown): IrResponse {
  const body = fields(json);
  const choices = listOf(body.choices).map(fields);
  const choice = choices.find((c) => c.index === 0) ?? choices[0] ?? {};
  const message = fields(choice.message);
  const parts: IrAssistantPart[] = [...reasoningOfMessage(message), ...contentParts(message)];
  const refusal = stringOr(message.refusal);
  if (refusal) parts.push({ type: "refusal", text: refusal });
  listOf(message.tool_calls).forEach((value, i) => {
    const call = toolCallOf(fields(value), `call_${i}`);
    if (call) parts.push(call);
  });
  const legacy = asRecord(message.function_call);
  if (legacy) {
    parts.push({
      type: "tool_call",
      id: "call_0",
      name: stringOr(legacy.name),
      arguments: argumentsText(legacy.arguments),
    });
  }
  const calledTools = parts.some((part) => part.type === "tool_call");
  const response: IrResponse = {
    id: stringOr(body.id),
    model: stringOr(body.model),
    parts,
    finish: finishOfChat(choice.finish_reason, calledTools),
  };
  if (typeof body.created === "number") response.created = body.created;
  // vLLM names the stop string that matched (or a token id, which says nothing here).
  if (typeof choice.stop_reason === "string") response.stopSequence = choice.stop_reason;
  const usage = usageFromResponse(json);
  if (usage) response.usage = usage;
  return response;
}

/** Text of `content`: a string, or parts (`text`; Mistral's `thinking` as reasoning). */
function contentParts(message: Record<string, unknown>): IrAssistantPart[] {
  const { content } = message;
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  const parts: IrAssistantPart[] = [];
  for (const value of listOf(content)) {
    const part = fields(value);
    if (part.type === "text" && stringOr(part.text)) {
      parts.push({ type: "text", text: stringOr(part.text) });
    } else if (part.type === "thinking") {
      const text = thinkingText(part.thinking);
      if (text) parts.push({ type: "reasoning", text });
    }
  }
  return parts;
}

/** Mistral's `thinking`: a string, or a list of `{type: "text", text}`. */
export function thinkingText(thinking: unknown): string {
  if (typeof thinking === "string") return thinking;
  return listOf(thinking).map((part) => stringOr(fields(part).text)).join("");
}

/**
 * One tool call: a function call, or a custom tool's input wrapped as `{"input": …}`.
 * Servers that leave out the id get `fallbackId`, so its result can still refer to it.
 */
function toolCallOf(call: Record<string, unknown>, fallbackId: string): IrToolCall | undefined {
  const id = stringOr(call.id) || fallbackId;
  const custom = asRecord(call.custom);
  if (call.type === "custom" && custom) {
    const input = JSON.stringify({ input: stringOr(custom.input) });
    return { type: "tool_call", id, name: stringOr(custom.name), arguments: input };
  }
  const fn = asRecord(call.function);
  if (!fn) return undefined;
  return { type: "tool_call", id, name: stringOr(fn.name), arguments: argumentsText(fn.arguments) };
}
