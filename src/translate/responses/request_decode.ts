/**
 * A responses client body (OpenAI `ResponseCreateParams`) as an IR request, including
 * what Codex CLI sends: developer messages, reasoning items with `encrypted_content`,
 * custom (freeform) tools and their calls, namespace and hosted tools (dropped).
 */
import { asRecord, fields, listOf, stringOr } from "../../protocols/json_read.ts";
import { parseDataUrl, sourceOfUrl } from "../chat/content.ts";
import { convertError } from "../errors.ts";
import type {
  IrAssistantPart,
  IrEffort,
  IrOutputFormat,
  IrReasoningConfig,
  IrRequest,
  IrText,
  IrTool,
  IrToolChoice,
  IrTurn,
  IrUserPart,
} from "../ir.ts";
import { unwrapOpaque } from "../opaque.ts";

const READ = new Set([
  "model",
  "input",
  "instructions",
  "stream",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_output_tokens",
  "temperature",
  "top_p",
  "reasoning",
  "text",
  "user",
  "safety_identifier",
  "previous_response_id",
  "top_logprobs",
]);

const EFFORTS: Record<string, IrEffort> = {
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "high",
};

/** Decodes a responses client body; throws `convert_request_failed` for content it cannot carry. */
export function decodeResponsesRequest(body: Record<string, unknown>): IrRequest {
  const dropped = Object.keys(body).filter((key) => !READ.has(key) && body[key] != null);
  const system: IrText[] = [];
  const instructions = stringOr(body.instructions);
  if (instructions) system.push({ type: "text", text: instructions });
  const turns = typeof body.input === "string"
    ? [{ role: "user" as const, parts: [{ type: "text" as const, text: body.input }] }]
    : decodeItems(listOf(body.input), system, dropped);
  const request: IrRequest = {
    model: stringOr(body.model),
    stream: body.stream === true,
    system,
    turns,
    tools: decodeTools(listOf(body.tools), dropped),
    stop: [],
    dropped,
  };
  const choice = decodeToolChoice(body.tool_choice, request);
  if (choice) request.toolChoice = choice;
  if (typeof body.parallel_tool_calls === "boolean") {
    request.parallelToolCalls = body.parallel_tool_calls;
  }
  if (typeof body.max_output_tokens === "number") request.maxOutputTokens = body.max_output_tokens;
  if (typeof body.temperature === "number") request.temperature = body.temperature;
  if (typeof body.top_p === "number") request.topP = body.top_p;
  if (typeof body.top_logprobs === "number") request.topLogprobs = body.top_logprobs;
  const reasoning = asRecord(body.reasoning);
  if (reasoning) {
    const effort = stringOr(reasoning.effort);
    const config: IrReasoningConfig = { enabled: effort !== "none" };
    if (EFFORTS[effort]) config.effort = EFFORTS[effort];
    if (stringOr(reasoning.summary)) config.summary = stringOr(reasoning.summary);
    request.reasoning = config;
  }
  const output = decodeFormat(asRecord(fields(body.text).format));
  if (output) request.output = output;
  const user = stringOr(body.safety_identifier) || stringOr(body.user);
  if (user) request.user = user;
  if (stringOr(body.previous_response_id)) {
    request.previousResponseId = body.previous_response_id as string;
  }
  return request;
}

/**
 * Input items as turns: leading system/developer messages join the system prompt;
 * reasoning, assistant messages and calls in a row form one assistant turn; outputs
 * of calls are tool results in a user turn.
 */
function decodeItems(items: unknown[], system: IrText[], dropped: string[]): IrTurn[] {
  const turns: IrTurn[] = [];
  const add = <R extends "user" | "assistant">(
    role: R,
    part: R extends "user" ? IrUserPart : IrAssistantPart,
  ) => {
    const last = turns[turns.length - 1];
    if (last?.role === role) (last.parts as unknown[]).push(part);
    else turns.push({ role, parts: [part] } as IrTurn);
  };
  items.forEach((value, i) => {
    const item = fields(value);
    const path = `input[${i}]`;
    const type = stringOr(item.type) || "message";
    if (type === "message") {
      const role = item.role;
      if (role === "system" || role === "developer") {
        const parts = userContent(item.content, path).filter((p): p is IrText => p.type === "text");
        if (turns.length === 0) system.push(...parts);
        else turns.push({ role: "system", parts });
      } else if (role === "user") {
        const parts = userContent(item.content, path);
        const last = turns[turns.length - 1];
        if (last?.role === "user") last.parts.push(...parts);
        else turns.push({ role: "user", parts });
      } else if (role === "assistant") {
        for (const part of assistantContent(item.content, path)) add("assistant", part);
      } else throw convertError(`${path}.role`, `the role ${JSON.stringify(role)} is unknown`);
    } else if (type === "function_call" || type === "custom_tool_call") {
      const args = type === "function_call"
        ? stringOr(item.arguments)
        : JSON.stringify({ input: stringOr(item.input) });
      add("assistant", {
        type: "tool_call",
        id: stringOr(item.call_id),
        name: stringOr(item.name),
        arguments: args,
        ...(stringOr(item.id) ? { itemId: stringOr(item.id) } : {}),
      });
    } else if (type === "function_call_output" || type === "custom_tool_call_output") {
      add("user", {
        type: "tool_result",
        callId: stringOr(item.call_id),
        content: typeof item.output === "string"
          ? [{ type: "text", text: item.output }]
          : userContent(item.output, `${path}.output`).filter((p) => p.type !== "tool_result"),
      } as IrUserPart);
    } else if (type === "reasoning") {
      const summary = listOf(item.summary).map((s) => stringOr(fields(s).text));
      const content = listOf(item.content).map((s) => stringOr(fields(s).text));
      const encrypted = stringOr(item.encrypted_content);
      add("assistant", {
        type: "reasoning",
        text: (summary.length > 0 ? summary : content).join("\n\n"),
        ...(encrypted ? { opaque: unwrapOpaque(encrypted, "openai_encrypted") } : {}),
        ...(stringOr(item.id) ? { itemId: stringOr(item.id) } : {}),
      });
    } else {
      // Hosted tool calls, item references, compactions: state only OpenAI's server holds.
      dropped.push(`${path} (${type})`);
    }
  });
  return turns;
}

function userContent(content: unknown, path: string): IrUserPart[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return listOf(content).map((value, j): IrUserPart => {
    const part = fields(value);
    const where = `${path}.content[${j}]`;
    switch (part.type) {
      case "input_text":
      case "output_text":
      case "text":
        return { type: "text", text: stringOr(part.text) };
      case "input_image": {
        const url = stringOr(part.image_url);
        const detail = stringOr(part.detail);
        const detailed = detail ? { detail } : {};
        if (url) return { type: "image", source: sourceOfUrl(url), ...detailed };
        const fileId = stringOr(part.file_id);
        if (fileId) return { type: "image", source: { kind: "file", fileId }, ...detailed };
        throw convertError(where, "the image has neither `image_url` nor `file_id`");
      }
      case "input_file": {
        const filename = stringOr(part.filename);
        const named = filename ? { filename } : {};
        const data = stringOr(part.file_data);
        const parsed = data ? parseDataUrl(data) : undefined;
        if (parsed) return { type: "document", source: { kind: "base64", ...parsed }, ...named };
        if (data) {
          return {
            type: "document",
            source: { kind: "base64", mediaType: "application/pdf", data },
            ...named,
          };
        }
        if (stringOr(part.file_url)) {
          return {
            type: "document",
            source: { kind: "url", url: stringOr(part.file_url) },
            ...named,
          };
        }
        const fileId = stringOr(part.file_id);
        if (fileId) return { type: "document", source: { kind: "file", fileId }, ...named };
        throw convertError(where, "the file has no data, URL or id");
      }
    }
    throw convertError(where, `a ${describe(part)} part cannot be translated`);
  });
}

function assistantContent(content: unknown, path: string): IrAssistantPart[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return listOf(content).map((value, j): IrAssistantPart => {
    const part = fields(value);
    if (part.type === "output_text" || part.type === "input_text") {
      return { type: "text", text: stringOr(part.text) };
    }
    if (part.type === "refusal") return { type: "refusal", text: stringOr(part.refusal) };
    throw convertError(`${path}.content[${j}]`, `a ${describe(part)} part cannot be translated`);
  });
}

/** Function tools (`strict` absent means true in this API), custom tools, web search. */
function decodeTools(tools: unknown[], dropped: string[]): IrTool[] {
  const out: IrTool[] = [];
  tools.forEach((value, i) => {
    const tool = fields(value);
    const description = typeof tool.description === "string"
      ? { description: tool.description }
      : {};
    if (tool.type === "function") {
      out.push({
        kind: "function",
        name: stringOr(tool.name),
        ...description,
        parameters: asRecord(tool.parameters) ?? { type: "object", properties: {} },
        strict: tool.strict !== false,
      });
    } else if (tool.type === "custom") {
      const format = asRecord(tool.format);
      out.push({
        kind: "custom",
        name: stringOr(tool.name),
        ...description,
        ...(format && format.type !== "text" ? { format } : {}),
      });
    } else if (typeof tool.type === "string" && tool.type.startsWith("web_search")) {
      out.push({ kind: "web_search", options: tool });
    } else dropped.push(`tools[${i}] (${stringOr(tool.type)})`);
  });
  return out;
}

function decodeToolChoice(value: unknown, request: IrRequest): IrToolChoice | undefined {
  if (value === "auto" || value === "none" || value === "required") return { type: value };
  const choice = asRecord(value);
  if (!choice) return undefined;
  if (choice.type === "allowed_tools") {
    const names = new Set(listOf(choice.tools).map((tool) => stringOr(fields(tool).name)));
    request.tools = request.tools.filter((tool) => "name" in tool && names.has(tool.name));
    return { type: choice.mode === "required" ? "required" : "auto" };
  }
  if ((choice.type === "function" || choice.type === "custom") && stringOr(choice.name)) {
    return { type: "tool", name: stringOr(choice.name) };
  }
  return undefined;
}

/** `text.format`: text, JSON mode or a JSON schema (`ResponseFormatTextJSONSchemaConfig`). */
function decodeFormat(format: Record<string, unknown> | undefined): IrOutputFormat | undefined {
  if (format?.type === "text" || format?.type === "json_object") return { type: format.type };
  if (format?.type !== "json_schema") return undefined;
  return {
    type: "json_schema",
    name: stringOr(format.name) || "response",
    schema: asRecord(format.schema) ?? {},
    strict: format.strict === true,
    ...(typeof format.description === "string" ? { description: format.description } : {}),
  };
}

function describe(part: Record<string, unknown>): string {
  return typeof part.type === "string" ? `\`${part.type}\`` : "typeless";
}
