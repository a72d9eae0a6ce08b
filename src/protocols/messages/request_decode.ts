/**
 * A messages client body (Anthropic `MessageCreateParams`) as an IR request. What Claude
 * Code sends is read or dropped, never refused: system blocks and messages with
 * `cache_control`, adaptive thinking with `output_config.effort`, `context_management`,
 * server tools, `role: "system"` messages, `metadata.user_id`.
 *
 * | messages                              | IR                                          |
 * |---------------------------------------|---------------------------------------------|
 * | `system` (string or text blocks)      | system (with `cacheControl`)                |
 * | `messages`                            | turns (messages_decode.ts)                  |
 * | `tools`: custom (`input_schema`)      | function tools, `strict` absent = false     |
 * | `tools`: `web_search_*`               | web_search (the tool object kept)           |
 * | `tools`: bash, text editor, code ...  | dropped                                     |
 * | `tool_choice` auto/any/none/tool      | auto/required/none/tool                     |
 * | `disable_parallel_tool_use`           | parallelToolCalls (inverted)                |
 * | `max_tokens`, `temperature`, `top_p`, `top_k`, `stop_sequences` | the same fields |
 * | `thinking` enabled/disabled/adaptive  | reasoning (budget -> effort, translate/reasoning.ts)  |
 * | `output_config.effort`                | reasoning.effort (xhigh, max -> high)       |
 * | `output_config.format` (json_schema)  | output                                      |
 * | `metadata.user_id`                    | user                                        |
 * | anything else (`service_tier`, `container`, `context_management`, `mcp_servers`, ...) | dropped |
 */
import { asRecord, fields, listOf, stringOr } from "../json_read.ts";
import type { IrReasoningConfig, IrRequest, IrTool, IrToolChoice } from "../../translate/ir.ts";
import { effortNamed, effortOfBudget } from "../../translate/reasoning.ts";
import { cacheOf } from "./content.ts";
import { decodeMessages, decodeSystem } from "./messages_decode.ts";

// Every field this decoder reads; any other field a client sets is reported as dropped.
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

/** Decodes a messages client body; throws `convert_request_failed` for content it cannot carry. */
export function decodeMessagesRequest(body: Record<string, unknown>): IrRequest {
  const dropped = Object.keys(body).filter((key) => !READ.has(key) && body[key] != null);
  const turns = decodeMessages(body.messages, dropped);
  const request: IrRequest = {
    model: stringOr(body.model),
    stream: body.stream === true,
    system: decodeSystem(body.system, "system"),
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
  setNumber(request, "maxOutputTokens", body.max_tokens);
  setNumber(request, "temperature", body.temperature);
  setNumber(request, "topP", body.top_p);
  setNumber(request, "topK", body.top_k);
  const config = fields(body.output_config);
  const reasoning = decodeThinking(fields(body.thinking), config, dropped);
  if (reasoning) request.reasoning = reasoning;
  const format = asRecord(config.format);
  if (format?.type === "json_schema") {
    // Anthropic's JSON outputs are always schema-exact; the IR's name is required.
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

function setNumber(
  request: IrRequest,
  key: "maxOutputTokens" | "temperature" | "topP" | "topK",
  value: unknown,
): void {
  if (typeof value === "number" && Number.isFinite(value)) request[key] = value;
}

/**
 * Client tools (Anthropic `Tool`, `type` absent or `custom`) as functions; web search
 * mapped; other server tools (bash, text editor, code execution, web fetch, memory,
 * tool search) dropped, since only Anthropic runs them.
 */
function decodeTools(value: unknown, dropped: string[]): IrTool[] {
  const tools: IrTool[] = [];
  listOf(value).forEach((entry, i) => {
    const tool = fields(entry);
    const type = stringOr(tool.type);
    if (type === "" || type === "custom") {
      tools.push({
        kind: "function",
        name: stringOr(tool.name),
        ...(typeof tool.description === "string" ? { description: tool.description } : {}),
        parameters: asRecord(tool.input_schema) ?? { type: "object", properties: {} },
        strict: tool.strict === true,
        ...cacheOf(tool),
      });
    } else if (/^web_search_\d{8}$/.test(type)) {
      tools.push({ kind: "web_search", options: tool });
    } else dropped.push(`tools[${i}] (${type})`);
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

/**
 * `thinking`: enabled with a budget, disabled, or adaptive / between_tools (the model
 * decides, guided by `output_config.effort`, as Claude Code sends it). An effort alone
 * asks for reasoning too. `display` (summarized or omitted thinking text) is dropped.
 */
function decodeThinking(
  thinking: Record<string, unknown>,
  config: Record<string, unknown>,
  dropped: string[],
): IrReasoningConfig | undefined {
  if (thinking.display != null) dropped.push("thinking.display");
  const effort = effortNamed(stringOr(config.effort));
  if (thinking.type === "disabled") return { enabled: false };
  if (thinking.type === "enabled") {
    // budget_tokens is required; a client leaving it out gets the medium budget.
    const budget = typeof thinking.budget_tokens === "number" ? thinking.budget_tokens : 10_000;
    return { enabled: true, budgetTokens: budget, effort: effort ?? effortOfBudget(budget) };
  }
  if (thinking.type === "adaptive" || thinking.type === "between_tools" || effort) {
    return { enabled: true, ...(effort ? { effort } : {}) };
  }
  return undefined;
}
