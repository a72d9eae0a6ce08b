/**
 * A responses upstream's whole answer (OpenAI `Response`) as an IR response: message
 * items' `output_text` and `refusal` parts, reasoning items (summary or raw reasoning
 * text, `encrypted_content`), function and custom tool calls, in output order. Items of
 * hosted tools (web search calls and the like) are the upstream's own business: skipped.
 */
import { fields, listOf, stringOr } from "../json_read.ts";
import { usageFromResponse } from "./usage.ts";
import type { IrAssistantPart, IrResponse } from "../../translate/ir.ts";
import { finishOfResponse } from "./finish.ts";
import { callOfItem, reasoningOfItem } from "./items.ts";

/** Decodes a `response` body (tolerant of missing fields). */
export function decodeResponsesResponse(json: unknown): IrResponse {
  const body = fields(json);
  const parts: IrAssistantPart[] = [];
  for (const value of listOf(body.output)) {
    const item = fields(value);
    if (item.type === "message") {
      for (const content of listOf(item.content).map(fields)) {
        if (content.type === "output_text") {
          parts.push({ type: "text", text: stringOr(content.text) });
        } else if (content.type === "refusal") {
          parts.push({ type: "refusal", text: stringOr(content.refusal) });
        }
      }
    } else if (item.type === "reasoning") parts.push(reasoningOfItem(item));
    else if (item.type === "function_call" || item.type === "custom_tool_call") {
      parts.push(callOfItem(item));
    }
  }
  const calledTools = parts.some((part) => part.type === "tool_call");
  const response: IrResponse = {
    id: stringOr(body.id),
    model: stringOr(body.model),
    parts,
    finish: finishOfResponse(body, calledTools),
  };
  if (typeof body.created_at === "number") response.created = body.created_at;
  const usage = usageFromResponse(json);
  if (usage) response.usage = usage;
  return response;
}
