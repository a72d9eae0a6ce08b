/**
 * A messages client body (Anthropic `MessageCreateParams`) as an IR request. Claude
 * Code's extras (adaptive thinking, `output_config.effort`, `context_management`,
 * server tools, `role: "system"` messages) are read or dropped, never refused.
 */
import { asRecord, fields, listOf, stringOr } from "../../protocols/json_read.ts";
import { convertError } from "../errors.ts";
import type {
  IrAssistantPart,
  IrEffort,
  IrReasoningConfig,
  IrRequest,
  IrText,
  IrTool,
  IrToolChoice,
  IrTurn,
  IrUserPart,
} from "../ir.ts";
import { unwrapOpaque } from "../opaque.ts";
import { effortOfBudget } from "../reasoning.ts";
import { cacheOf, sourceOf } from "./content.ts";

const READ = new Set([
  "model",
  "messages",
  "system",
  "max_tokens",
  "stream",
  "tools",
  "tool_choice",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "thinking",
  "metadata",
  "output_config",
]);

// Assistant blocks of server-run tools: their results are already in the history.
const SERVER_BLOCKS = /^(server_tool_use|.*_tool_result|mcp_tool_use|container_upload)$/;

/** Decodes a messages client body; throws `convert_request_failed` for content it cannot carry. */
export function decodeMessagesRequest(body: Record<string, unknown>): IrRequest {
  const dropped = Object.keys(body).filter((key) => !READ.has(key) && body[key] != null);
  const turns: IrTurn[] = [];
  listOf(body.messages).forEach((value, i) => {
    const message = fields(value);
    const path = `messages[${i}]`;
    if (message.role === "user") {
      turns.push({ role: "user", parts: userParts(message.content, path) });
    } else if (message.role === "assistant") {
      turns.push({ role: "assistant", parts: assistantParts(message.content, path, dropped) });
    } else if (message.role === "system") {
      turns.push({ role: "system", parts: textBlocks(message.content, `${path}.content`) });
    } else {
      throw convertError(`${path}.role`, `the role ${JSON.stringify(message.role)} is unknown`);
    }
  });
  const request: IrRequest = {
    model: stringOr(body.model),
    stream: body.stream === true,
    system: textBlocks(body.system, "system"),
    turns,
    tools: decodeTools(body.tools, dropped),
    stop: listOf(body.stop_sequences).filter((s): s is string => typeof s === "string"),
    dropped,
  };
  const choice = fields(body.tool_choice);
  const toolChoice = decodeToolChoice(choice);
  if (toolChoice) request.toolChoice = toolChoice;
  if (typeof choice.disable_parallel_tool_use === "boolean") {
    request.parallelToolCalls = !choice.disable_parallel_tool_use;
  }
  if (typeof body.max_tokens === "number") request.maxOutputTokens = body.max_tokens;
  if (typeof body.temperature === "number") request.temperature = body.temperature;
  if (typeof body.top_p === "number") request.topP = body.top_p;
  if (typeof body.top_k === "number") request.topK = body.top_k;
  const reasoning = decodeThinking(fields(body.thinking), fields(body.output_config));
  if (reasoning) request.reasoning = reasoning;
  const format = asRecord(fields(body.output_config).format);
  if (format?.type === "json_schema") {
    request.output = {
      type: "json_schema",
      name: "response",
      schema: asRecord(format.schema) ?? {},
      strict: true,
    };
  }
  const user = stringOr(fields(body.metadata).user_id);
  if (user) request.user = user;
  return request;
}

/** `system` or a system message's content: a string or text blocks. */
function textBlocks(content: unknown, path: string): IrText[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return listOf(content).map((value, j) => {
    const block = fields(value);
    if (block.type !== "text") {
      throw convertError(`${path}[${j}]`, `a ${describe(block)} block cannot be a system prompt`);
    }
    return { type: "text", text: stringOr(block.text), ...cacheOf(block) };
  });
}

function userParts(content: unknown, path: string): IrUserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return listOf(content).flatMap((value, j): IrUserPart[] => {
    const block = fields(value);
    const where = `${path}.content[${j}]`;
    switch (block.type) {
      case "text":
        return [{ type: "text", text: stringOr(block.text), ...cacheOf(block) }];
      case "image":
      case "document": {
        const source = sourceOf(block.source);
        if (!source) throw convertError(`${where}.source`, "the source type is unknown");
        if (block.type === "image") return [{ type: "image", source, ...cacheOf(block) }];
        const title = stringOr(block.title);
        return [{ type: "document", source, ...(title ? { title } : {}), ...cacheOf(block) }];
      }
      case "tool_result":
        return [{
          type: "tool_result",
          callId: stringOr(block.tool_use_id),
          content: resultContent(block.content, `${where}.content`),
          ...(block.is_error === true ? { isError: true } : {}),
          ...cacheOf(block),
        }];
    }
    throw convertError(where, `a ${describe(block)} block cannot be translated`);
  });
}

/** A tool result's content: a string, or text, image and document blocks. */
function resultContent(content: unknown, path: string) {
  const parts = userParts(content ?? "", path);
  return parts.flatMap((part) => part.type === "tool_result" ? [] : [part]);
}

function assistantParts(content: unknown, path: string, dropped: string[]): IrAssistantPart[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return listOf(content).flatMap((value, j): IrAssistantPart[] => {
    const block = fields(value);
    switch (block.type) {
      case "text":
        return [{ type: "text", text: stringOr(block.text) }];
      case "thinking": {
        const signature = stringOr(block.signature);
        const opaque = signature ? { opaque: unwrapOpaque(signature, "anthropic_signature") } : {};
        return [{ type: "reasoning", text: stringOr(block.thinking), ...opaque }];
      }
      case "redacted_thinking":
        return [{
          type: "reasoning",
          text: "",
          opaque: { kind: "anthropic_redacted", value: stringOr(block.data) },
        }];
      case "tool_use":
        return [{
          type: "tool_call",
          id: stringOr(block.id),
          name: stringOr(block.name),
          arguments: JSON.stringify(block.input ?? {}),
        }];
    }
    if (typeof block.type === "string" && SERVER_BLOCKS.test(block.type)) {
      dropped.push(`${path}.content[${j}] (${block.type})`);
      return [];
    }
    throw convertError(`${path}.content[${j}]`, `a ${describe(block)} block cannot be translated`);
  });
}

/** Client tools (with `input_schema`) as functions; web search mapped; other server tools dropped. */
function decodeTools(value: unknown, dropped: string[]): IrTool[] {
  const tools: IrTool[] = [];
  listOf(value).forEach((entry, i) => {
    const tool = fields(entry);
    const type = stringOr(tool.type);
    if ((type === "" || type === "custom") && asRecord(tool.input_schema)) {
      tools.push({
        kind: "function",
        name: stringOr(tool.name),
        ...(typeof tool.description === "string" ? { description: tool.description } : {}),
        parameters: asRecord(tool.input_schema)!,
        strict: tool.strict === true,
        ...cacheOf(tool),
      });
    } else if (type.startsWith("web_search")) {
      tools.push({ kind: "web_search", options: tool });
    } else dropped.push(`tools[${i}] (${type || stringOr(tool.name)})`);
  });
  return tools;
}

function decodeToolChoice(choice: Record<string, unknown>): IrToolChoice | undefined {
  switch (choice.type) {
    case "auto":
      return { type: "auto" };
    case "any":
      return { type: "required" };
    case "none":
      return { type: "none" };
    case "tool":
      return { type: "tool", name: stringOr(choice.name) };
  }
  return undefined;
}

const EFFORTS: Record<string, IrEffort> = {
  low: "low",
  medium: "medium",
  high: "high",
  max: "high",
};

/**
 * `thinking`: enabled with a budget, disabled, or adaptive (the model decides, guided by
 * `output_config.effort`, as Claude Code sends it).
 */
function decodeThinking(
  thinking: Record<string, unknown>,
  config: Record<string, unknown>,
): IrReasoningConfig | undefined {
  const effort = EFFORTS[stringOr(config.effort)];
  if (thinking.type === "disabled") return { enabled: false };
  if (thinking.type === "enabled") {
    const budget = typeof thinking.budget_tokens === "number" ? thinking.budget_tokens : 10_000;
    return { enabled: true, budgetTokens: budget, effort: effort ?? effortOfBudget(budget) };
  }
  if (thinking.type === "adaptive" || effort) {
    return { enabled: true, ...(effort ? { effort } : {}) };
  }
  return undefined;
}

function describe(block: Record<string, unknown>): string {
  return typeof block.type === "string" ? `\`${block.type}\`` : "typeless";
}
