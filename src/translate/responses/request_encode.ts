/**
 * An IR request as the body for a responses upstream (OpenAI `ResponseCreateParams`).
 *
 * | IR                  | responses                                                      |
 * |---------------------|----------------------------------------------------------------|
 * | system              | `instructions` (joined by blank lines)                         |
 * | system turns        | `role: "system"` input messages                                |
 * | turns               | input items: messages, `function_call`, `function_call_output`, |
 * |                     | `custom_tool_call(_output)`, reasoning with `encrypted_content` |
 * | tools: function     | `{type: "function", …, strict}` (strict always written)        |
 * | tools: custom       | `{type: "custom", name, format}`                               |
 * | tools: web_search   | `{type: "web_search"}`                                         |
 * | maxOutputTokens     | `max_output_tokens`                                            |
 * | reasoning           | `reasoning: {effort, summary}` + `include` encrypted content   |
 * | output              | `text.format`                                                  |
 * | stop, topK          | dropped (no equivalent)                                        |
 * | n > 1, logprobs, audio | refused                                                     |
 *
 * `store: false`: the gateway sends the whole history every time.
 */
import { dataUrl } from "../chat/content.ts";
import type { RequestEncodeContext } from "../codec.ts";
import { convertError } from "../errors.ts";
import type { IrAssistantPart, IrRequest, IrTool, IrUserPart } from "../ir.ts";
import { effortOfBudget } from "../reasoning.ts";

type Item = Record<string, unknown>;
type Drop = (what: string, why: string) => void;

/** The responses upstream body of a request. */
export function encodeResponsesRequest(
  request: IrRequest,
  context: RequestEncodeContext,
): Record<string, unknown> {
  if (request.n !== undefined && request.n > 1) {
    throw convertError("n", "the responses protocol returns one answer per request");
  }
  if (request.logprobs && request.topLogprobs === undefined) {
    throw convertError("logprobs", "responses reports log probabilities only with top_logprobs");
  }
  if (request.audio) throw convertError("modalities", "responses has no audio output");
  const seen = new Set<string>();
  const drop: Drop = (what, why) => {
    if (!seen.has(what)) {
      seen.add(what);
      context.drop(what, why);
    }
  };
  const custom = new Set(
    request.tools.flatMap((tool) => tool.kind === "custom" ? [tool.name] : []),
  );
  const body: Record<string, unknown> = { model: context.model };
  if (request.system.length > 0) {
    body.instructions = request.system.map((part) => part.text).join("\n\n");
  }
  body.input = encodeTurns(request, custom, drop);
  const tools = request.tools.map(encodeTool);
  if (tools.length > 0) {
    body.tools = tools;
    const choice = request.toolChoice;
    if (choice) {
      body.tool_choice = choice.type === "tool"
        ? { type: custom.has(choice.name) ? "custom" : "function", name: choice.name }
        : choice.type;
    }
    if (request.parallelToolCalls !== undefined) {
      body.parallel_tool_calls = request.parallelToolCalls;
    }
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) drop("top_k", "responses has no top_k");
  if (request.stop.length > 0) drop("stop", "responses has no stop sequences");
  if (request.topLogprobs !== undefined) body.top_logprobs = request.topLogprobs;
  const reasoning = request.reasoning;
  if (reasoning?.enabled) {
    const effort = reasoning.effort ??
      (reasoning.budgetTokens !== undefined ? effortOfBudget(reasoning.budgetTokens) : "medium");
    body.reasoning = { effort, summary: reasoning.summary ?? "auto" };
    // Without stored state, the reasoning must come back to be sent with the next turn.
    body.include = ["reasoning.encrypted_content"];
  }
  if (request.output && request.output.type !== "text") {
    const output = request.output;
    body.text = {
      format: output.type === "json_object" ? { type: "json_object" } : {
        type: "json_schema",
        name: output.name,
        schema: output.schema,
        strict: output.strict,
        ...(output.description !== undefined ? { description: output.description } : {}),
      },
    };
  }
  if (request.user) body.user = request.user;
  if (request.previousResponseId) body.previous_response_id = request.previousResponseId;
  body.store = false;
  if (request.stream) body.stream = true;
  return body;
}

function encodeTurns(request: IrRequest, custom: Set<string>, drop: Drop): Item[] {
  const items: Item[] = [];
  // A result answers a custom tool's call with a custom output: find the call's tool by id.
  const toolOfCall = new Map<string, string>();
  for (const turn of request.turns) {
    if (turn.role === "system") {
      items.push({ role: "system", content: turn.parts.map((part) => part.text).join("\n\n") });
    } else if (turn.role === "user") {
      items.push(...userItems(turn.parts, toolOfCall, custom, drop));
    } else {
      for (const part of turn.parts) {
        const item = assistantItem(part, custom, drop);
        if (part.type === "tool_call") toolOfCall.set(part.id, part.name);
        if (item) items.push(item);
      }
    }
  }
  return items;
}

function userItems(
  parts: IrUserPart[],
  toolOfCall: Map<string, string>,
  custom: Set<string>,
  drop: Drop,
): Item[] {
  const items: Item[] = [];
  const content: Item[] = [];
  for (const part of parts) {
    if (part.type === "tool_result") {
      const texts = part.content.flatMap((item) => {
        if (item.type === "text") return [item.text];
        drop(`tool_result ${item.type}`, "tool outputs are sent as text");
        return [];
      });
      const isCustom = custom.has(toolOfCall.get(part.callId) ?? "");
      items.push({
        type: isCustom ? "custom_tool_call_output" : "function_call_output",
        call_id: part.callId,
        output: texts.join("\n"),
      });
    } else if (part.type === "text") content.push({ type: "input_text", text: part.text });
    else if (part.type === "image") {
      const source = part.source;
      const detail = { detail: part.detail ?? "auto" };
      if (source.kind === "url") {
        content.push({ type: "input_image", image_url: source.url, ...detail });
      } else if (source.kind === "base64") {
        content.push({
          type: "input_image",
          image_url: dataUrl(source.mediaType, source.data),
          ...detail,
        });
      } else if (source.kind === "file") {
        content.push({ type: "input_image", file_id: source.fileId, ...detail });
      }
    } else {
      const source = part.source;
      const filename = part.filename ?? part.title;
      const named = filename ? { filename } : {};
      if (source.kind === "text") content.push({ type: "input_text", text: source.text });
      else if (source.kind === "url") {
        content.push({ type: "input_file", file_url: source.url, ...named });
      } else if (source.kind === "file") {
        content.push({ type: "input_file", file_id: source.fileId, ...named });
      } else {
        content.push({
          type: "input_file",
          file_data: dataUrl(source.mediaType, source.data),
          filename: filename ?? "document.pdf",
        });
      }
    }
  }
  if (content.length > 0) items.push({ role: "user", content });
  return items;
}

function assistantItem(part: IrAssistantPart, custom: Set<string>, drop: Drop): Item | undefined {
  switch (part.type) {
    case "text":
    case "refusal":
      return part.text ? { role: "assistant", content: part.text } : undefined;
    case "tool_call":
      if (custom.has(part.name)) {
        let input = part.arguments;
        try {
          input = JSON.parse(part.arguments).input ?? input;
        } catch { /* the arguments were the raw input */ }
        return { type: "custom_tool_call", call_id: part.id, name: part.name, input };
      }
      return {
        type: "function_call",
        call_id: part.id,
        name: part.name,
        arguments: part.arguments,
      };
    case "reasoning":
      if (part.opaque?.kind !== "openai_encrypted") {
        drop("reasoning", "only OpenAI's own encrypted reasoning can be sent back");
        return undefined;
      }
      return {
        type: "reasoning",
        ...(part.itemId ? { id: part.itemId } : {}),
        summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
        encrypted_content: part.opaque.value,
      };
  }
}

function encodeTool(tool: IrTool): Item {
  if (tool.kind === "web_search") {
    const options = tool.options;
    const native = typeof options?.type === "string" &&
      /^web_search(_preview)?$/.test(options.type);
    return native ? options! : { type: "web_search" };
  }
  if (tool.kind === "custom") {
    return {
      type: "custom",
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.format ? { format: tool.format } : {}),
    };
  }
  return {
    type: "function",
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    parameters: tool.parameters,
    // This API reads an absent `strict` as true: say what the client meant.
    strict: tool.strict,
  };
}
