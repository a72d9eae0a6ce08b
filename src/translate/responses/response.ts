/**
 * Whole responses (OpenAI `Response`) <-> IR answers, and the output items and
 * response object the stream encoder shares. Reasoning keeps its state in
 * `encrypted_content` (another provider's wrapped, see opaque.ts); a call of a tool the
 * client declared `custom` is a `custom_tool_call` with its raw `input`.
 */
import { fields, listOf, stringOr } from "../../protocols/json_read.ts";
import { encodeUsage, usageFromResponse } from "../../protocols/responses/usage.ts";
import type { Usage } from "../../protocols/types.ts";
import { customInput, customToolNames } from "../chat/response_encode.ts";
import type { ResponseEncodeContext } from "../codec.ts";
import type { IrAssistantPart, IrFinish, IrReasoning, IrResponse, IrToolCall } from "../ir.ts";
import { wrapOpaque } from "../opaque.ts";

type Item = Record<string, unknown>;

/** Decodes a responses upstream's `response` body. */
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
  const response: IrResponse = {
    id: stringOr(body.id),
    model: stringOr(body.model),
    parts,
    finish: finishOf(body, parts.some((part) => part.type === "tool_call")),
  };
  if (typeof body.created_at === "number") response.created = body.created_at;
  const usage = usageFromResponse(json);
  if (usage) response.usage = usage;
  return response;
}

/** A reasoning item's summary (or raw reasoning text) and encrypted state. */
export function reasoningOfItem(item: Record<string, unknown>): IrReasoning {
  const summary = listOf(item.summary).map((s) => stringOr(fields(s).text));
  const content = listOf(item.content).map((s) => stringOr(fields(s).text));
  const encrypted = stringOr(item.encrypted_content);
  return {
    type: "reasoning",
    text: (summary.length > 0 ? summary : content).join("\n\n"),
    ...(encrypted ? { opaque: { kind: "openai_encrypted" as const, value: encrypted } } : {}),
    ...(stringOr(item.id) ? { itemId: stringOr(item.id) } : {}),
  };
}

/** A function or custom tool call item (a custom input travels as `{"input": …}`). */
export function callOfItem(item: Record<string, unknown>): IrToolCall {
  return {
    type: "tool_call",
    id: stringOr(item.call_id) || stringOr(item.id),
    name: stringOr(item.name),
    arguments: item.type === "custom_tool_call"
      ? JSON.stringify({ input: stringOr(item.input) })
      : stringOr(item.arguments),
    ...(stringOr(item.id) ? { itemId: stringOr(item.id) } : {}),
  };
}

/** The IR finish of a response's status and `incomplete_details`. */
export function finishOf(response: Record<string, unknown>, calledTools: boolean): IrFinish {
  if (response.status === "incomplete") {
    return fields(response.incomplete_details).reason === "content_filter"
      ? "content_filter"
      : "length";
  }
  return calledTools ? "tool_calls" : "stop";
}

/** The output items of an answer's parts; text parts in a row share one message item. */
export function outputItems(parts: IrAssistantPart[], context: ResponseEncodeContext): Item[] {
  const custom = customToolNames(context.request);
  const items: Item[] = [];
  let message: Item[] | undefined;
  for (const part of parts) {
    if (part.type === "text" || part.type === "refusal") {
      if (!message) {
        message = [];
        items.push(messageItem(context.newId("msg_"), message));
      }
      message.push(contentPart(part.type, part.text));
      continue;
    }
    message = undefined;
    items.push(
      part.type === "reasoning" ? reasoningItem(part, context) : callItem(part, custom, context),
    );
  }
  return items;
}

/** A message item holding `content`. */
export function messageItem(id: string, content: Item[]): Item {
  return { id, type: "message", status: "completed", role: "assistant", content };
}

/** An `output_text` (or `refusal`) content part. */
export function contentPart(kind: "text" | "refusal", text: string): Item {
  return kind === "text"
    ? { type: "output_text", text, annotations: [], logprobs: [] }
    : { type: "refusal", refusal: text };
}

/** A reasoning item; its text as one summary part. */
export function reasoningItem(part: IrReasoning, context: ResponseEncodeContext): Item {
  return {
    id: part.itemId ?? context.newId("rs_"),
    type: "reasoning",
    summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
    ...(part.opaque ? { encrypted_content: wrapOpaque(part.opaque, "openai_encrypted") } : {}),
  };
}

/** A function call item, or a custom tool call item for a tool the client declared custom. */
export function callItem(
  call: IrToolCall,
  custom: Set<string>,
  context: ResponseEncodeContext,
): Item {
  if (custom.has(call.name)) {
    return {
      id: context.newId("ctc_"),
      type: "custom_tool_call",
      status: "completed",
      call_id: call.id,
      name: call.name,
      input: customInput(call.arguments),
    };
  }
  return {
    id: call.itemId ?? context.newId("fc_"),
    type: "function_call",
    status: "completed",
    call_id: call.id,
    name: call.name,
    arguments: call.arguments,
  };
}

/** The `response` object: the client's parameters echoed, the output, status and usage. */
export function responseObject(
  context: ResponseEncodeContext,
  id: string,
  created: number,
  output: Item[],
  finish: IrFinish | undefined,
  usage: Usage | undefined,
): Item {
  const body = context.body;
  const incomplete = finish === "length" || finish === "content_filter";
  return {
    id,
    object: "response",
    created_at: created,
    status: finish === undefined ? "in_progress" : incomplete ? "incomplete" : "completed",
    error: null,
    incomplete_details: incomplete
      ? { reason: finish === "length" ? "max_output_tokens" : "content_filter" }
      : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: context.model,
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    store: body.store ?? false,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: "disabled",
    usage: usage && finish !== undefined ? encodeUsage(usage) : null,
    user: null,
    metadata: body.metadata ?? {},
  };
}

/** The client's `response` body for an answer. */
export function encodeResponsesResponse(
  response: IrResponse,
  context: ResponseEncodeContext,
): Record<string, unknown> {
  const created = response.created ?? Math.floor(context.now() / 1000);
  const output = outputItems(response.parts, context);
  const zero = { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_write_tokens: 0 };
  return responseObject(
    context,
    context.newId("resp_"),
    created,
    output,
    response.finish,
    response.usage ?? zero,
  );
}
