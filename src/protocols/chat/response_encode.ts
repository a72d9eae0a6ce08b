/**
 * An IR answer as a chat client's `chat.completion` (OpenAI `ChatCompletion`). Reasoning
 * goes in `reasoning_content` (what DeepSeek-style clients, the AI SDK and opencode
 * read) and, when it carries opaque state, in OpenRouter-style `reasoning_details`,
 * which clients keep on the message and send back with the history.
 */
import { encodeUsage } from "./usage.ts";
import type { ResponseEncodeContext } from "../../translate/codec.ts";
import type { IrReasoning, IrRequest, IrResponse, IrToolCall } from "../../translate/ir.ts";
import { chatFinishOf } from "./finish.ts";
import { detailsOfReasoning } from "./reasoning_details.ts";

/** The client's `chat.completion` body for an answer. */
export function encodeChatResponse(
  response: IrResponse,
  context: ResponseEncodeContext,
): Record<string, unknown> {
  let content = "";
  let refusal = "";
  const reasoning: IrReasoning[] = [];
  const calls: Record<string, unknown>[] = [];
  const custom = customToolNames(context.request);
  for (const part of response.parts) {
    if (part.type === "text") content += part.text;
    else if (part.type === "refusal") refusal += part.text;
    else if (part.type === "reasoning") reasoning.push(part);
    else calls.push(chatToolCall(part, custom));
  }
  const message: Record<string, unknown> = {
    role: "assistant",
    content: content || (refusal || calls.length > 0 ? null : ""),
    refusal: refusal || null,
  };
  if (reasoning.length > 0) {
    message.reasoning_content = reasoning.map((part) => part.text).join("");
    if (reasoning.some((part) => part.opaque)) {
      message.reasoning_details = reasoning.flatMap((part, i) => detailsOfReasoning(part, i));
    }
  }
  if (calls.length > 0) message.tool_calls = calls;
  const body: Record<string, unknown> = {
    id: context.newId("chatcmpl-"),
    object: "chat.completion",
    created: response.created ?? Math.floor(context.now() / 1000),
    model: context.model,
    choices: [{
      index: 0,
      message,
      logprobs: null,
      finish_reason: chatFinishOf(response.finish, calls.length > 0),
    }],
  };
  if (response.usage) body.usage = encodeUsage(response.usage);
  return body;
}

/** Names of the client's freeform custom tools: their calls answer with `input` text. */
export function customToolNames(request: IrRequest): Set<string> {
  return new Set(request.tools.flatMap((tool) => tool.kind === "custom" ? [tool.name] : []));
}

/** A custom tool's input from the call's `{"input": …}` arguments (raw text if not that). */
export function customInput(args: string): string {
  try {
    const parsed = JSON.parse(args);
    if (typeof parsed?.input === "string") return parsed.input;
  } catch {
    // The model wrote no JSON: its text is the input.
  }
  return args;
}

/** A `tool_calls` entry: a function call, or a custom tool call when the client defined one. */
function chatToolCall(call: IrToolCall, custom: Set<string>): Record<string, unknown> {
  if (custom.has(call.name)) {
    return {
      id: call.id,
      type: "custom",
      custom: { name: call.name, input: customInput(call.arguments) },
    };
  }
  return {
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  };
}
