/**
 * An IR request as the body for a messages upstream (Anthropic `MessageCreateParams`;
 * the "Messages" API reference, "Extended thinking" and "Tool use" guides).
 *
 * | IR                    | messages                                                        |
 * |-----------------------|-----------------------------------------------------------------|
 * | system, system turns  | `system` (blocks when any carries `cache_control`, else a string) |
 * | turns                 | `messages`; tool results first in a user turn; same roles merged |
 * | tool call ids         | made to match `^[a-zA-Z0-9_-]+$` (content.ts `toolId`)           |
 * | reasoning parts       | `thinking` / `redacted_thinking` when Anthropic's own, else dropped |
 * | maxOutputTokens       | `max_tokens` (required: the model's `max_output_tokens` if unset) |
 * | stop                  | `stop_sequences`                                                |
 * | temperature, topP, topK | the same fields (see thinking below)                          |
 * | tools: function       | `{name, description, input_schema}` (`strict` dropped)          |
 * | tools: custom         | a tool taking `{input: string}` (a grammar told in the description) |
 * | tools: web_search     | `web_search_20250305` (domains and location kept)               |
 * | toolChoice            | auto / any / none / `{type: "tool", name}`                      |
 * | parallelToolCalls     | `tool_choice.disable_parallel_tool_use` (inverted)              |
 * | reasoning             | `thinking` with a budget (translate/reasoning.ts), or disabled |
 * | reasoning.summary     | dropped (messages shows thinking as it is)                      |
 * | user                  | `metadata.user_id`                                              |
 * | promptCacheKey        | dropped: the codec adds `cache_control` breakpoints instead     |
 * | output (JSON)         | dropped (no equivalent without a beta)                          |
 * | n > 1, logprobs, topLogprobs, previousResponseId, audio | refused                       |
 *
 * Thinking: the budget stays below `max_tokens` (the client's cap, which its hold
 * covers) by clamping the budget, never by raising `max_tokens`; below Anthropic's
 * minimum of 1,024 thinking is dropped. With thinking on, the API rejects temperature
 * other than 1, `top_k`, `top_p` under 0.95 and forced tool use: those are dropped.
 */
import type { RequestEncodeContext } from "../../translate/codec.ts";
import { convertError } from "../../translate/errors.ts";
import type { IrRequest, IrTool } from "../../translate/ir.ts";
import { BUDGET_BY_EFFORT } from "../../translate/reasoning.ts";
import { cacheField } from "./content.ts";
import { type Block, encodeSystem, encodeTurns, unsignedToolLoop } from "./messages_encode.ts";
import { type Drop } from "../../translate/encoding.ts";
import { dropOnce } from "../../translate/encoding.ts";

// Anthropic's web search tool types are dated (`web_search_20250305`); OpenAI's are not
// (`web_search_preview`) or dated otherwise (`web_search_2025_08_26`).
const ANTHROPIC_WEB_SEARCH = /^web_search_\d{8}$/;
// Anthropic's smallest thinking budget (`ThinkingConfigEnabled.budget_tokens`).
const MIN_BUDGET = 1_024;

/** The messages upstream body of a request. */
export function encodeMessagesRequest(
  request: IrRequest,
  context: RequestEncodeContext,
): Record<string, unknown> {
  refuse(request);
  const drop = dropOnce(context);
  const body: Record<string, unknown> = { model: context.model };
  const system = [
    ...request.system,
    ...request.turns.flatMap((turn) => turn.role === "system" ? turn.parts : []),
  ];
  if (system.length > 0) body.system = encodeSystem(system);
  const messages = encodeTurns(request.turns, drop);
  body.messages = messages;
  const maxTokens = request.maxOutputTokens ?? context.defaultMaxOutputTokens;
  body.max_tokens = maxTokens;
  if (request.stop.length > 0) body.stop_sequences = request.stop;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) body.top_k = request.topK;
  const tools = request.tools.flatMap((tool) => encodeTool(tool, drop));
  if (tools.length > 0) {
    body.tools = tools;
    const choice = encodeToolChoice(request);
    if (choice) body.tool_choice = choice;
  }
  const thinking = encodeThinking(request, maxTokens, messages, drop);
  if (thinking) body.thinking = thinking;
  if (thinking?.type === "enabled") thinkingLimits(body, drop);
  if (request.reasoning?.summary) {
    drop("reasoning.summary", "messages shows thinking as it is");
  }
  if (request.output && request.output.type !== "text") {
    drop("response_format", "messages has no structured output without a beta");
  }
  if (request.user) body.metadata = { user_id: request.user };
  if (request.promptCacheKey) {
    drop("prompt_cache_key", "messages caches at `cache_control` breakpoints, which are added");
  }
  if (request.stream) body.stream = true;
  return body;
}

function refuse(request: IrRequest): void {
  if (request.n !== undefined && request.n > 1) {
    throw convertError("n", "the messages protocol returns one answer per request");
  }
  if (request.logprobs || request.topLogprobs !== undefined) {
    throw convertError(
      request.logprobs ? "logprobs" : "top_logprobs",
      "the messages protocol has no log probabilities",
    );
  }
  if (request.previousResponseId) {
    throw convertError(
      "previous_response_id",
      "the messages protocol keeps no conversation state; send the whole history instead",
    );
  }
  if (request.audio) throw convertError("modalities", "the messages protocol has no audio output");
}

// One debug line per kind of loss, however many parts it hit.

/** `thinking`, or undefined when the request says nothing or thinking cannot go. */
function encodeThinking(
  request: IrRequest,
  maxTokens: number,
  messages: Block[],
  drop: Drop,
): Block | undefined {
  const reasoning = request.reasoning;
  if (!reasoning) return undefined;
  if (!reasoning.enabled) return { type: "disabled" };
  const wanted = reasoning.budgetTokens ?? BUDGET_BY_EFFORT[reasoning.effort ?? "medium"];
  const budget = Math.min(Math.max(MIN_BUDGET, wanted), maxTokens - 1);
  if (budget < MIN_BUDGET) {
    drop("reasoning", `max_tokens ${maxTokens} leaves no room for the minimum thinking budget`);
    return undefined;
  }
  if (unsignedToolLoop(messages)) {
    drop("reasoning", "the last tool call has no Anthropic thinking before it, as thinking needs");
    return undefined;
  }
  return { type: "enabled", budget_tokens: budget };
}

/** With thinking on, Anthropic rejects sampling other than its own and forced tool use. */
function thinkingLimits(body: Record<string, unknown>, drop: Drop): void {
  if (body.temperature !== undefined && body.temperature !== 1) {
    delete body.temperature;
    drop("temperature", "Anthropic accepts no temperature but 1 with thinking on");
  }
  if (body.top_k !== undefined) {
    delete body.top_k;
    drop("top_k", "Anthropic accepts no top_k with thinking on");
  }
  if (typeof body.top_p === "number" && body.top_p < 0.95) {
    delete body.top_p;
    drop("top_p", "Anthropic accepts top_p only from 0.95 with thinking on");
  }
  const choice = body.tool_choice as Block | undefined;
  if (choice && (choice.type === "any" || choice.type === "tool")) {
    const { name: _forced, ...rest } = choice;
    body.tool_choice = { ...rest, type: "auto" };
    drop("tool_choice", "Anthropic cannot force a tool with thinking on");
  }
}

function encodeTool(tool: IrTool, drop: Drop): Block[] {
  if (tool.kind === "web_search") return [webSearchTool(tool.options)];
  if (tool.kind === "custom") {
    const description = (tool.description ?? "") + grammarNote(tool.format);
    return [{
      name: tool.name,
      ...(description ? { description } : {}),
      input_schema: {
        type: "object",
        properties: { input: { type: "string", description: "The tool's freeform input." } },
        required: ["input"],
      },
    }];
  }
  if (tool.strict) drop("strict", "messages tools are not strict");
  // `input_schema` must be an object schema; a client's schema may leave `type` out.
  return [{
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: { type: "object", ...tool.parameters },
    ...cacheField(tool),
  }];
}

/**
 * Anthropic's web search tool (`WebSearchTool20250305`): a messages client's own tool
 * object as it was; a responses `web_search` tool with its allowed domains and user
 * location, which both APIs shape alike (`approximate` with city, region, country,
 * timezone).
 */
function webSearchTool(options: Record<string, unknown> | undefined): Block {
  if (typeof options?.type === "string" && ANTHROPIC_WEB_SEARCH.test(options.type)) return options;
  const tool: Block = { type: "web_search_20250305", name: "web_search" };
  const filters = options?.filters as Record<string, unknown> | undefined;
  if (Array.isArray(filters?.allowed_domains)) tool.allowed_domains = filters.allowed_domains;
  const location = options?.user_location as Record<string, unknown> | undefined;
  if (location && typeof location === "object") tool.user_location = location;
  return tool;
}

// A tool taking one string cannot carry a grammar; the model still needs the input's shape.
function grammarNote(format: Record<string, unknown> | undefined): string {
  if (format?.type !== "grammar") return "";
  const grammar = format.grammar as Record<string, unknown> | undefined;
  const definition = grammar?.definition ?? format.definition;
  const syntax = grammar?.syntax ?? format.syntax ?? "lark";
  return typeof definition === "string" && definition
    ? `\n\nThe input must follow this ${syntax} grammar:\n${definition}`
    : "";
}

function encodeToolChoice(request: IrRequest): Block | undefined {
  const choice = request.toolChoice;
  const base: Block | undefined = choice === undefined
    ? undefined
    : choice.type === "required"
    ? { type: "any" }
    : choice.type === "tool"
    ? { type: "tool", name: choice.name }
    : { type: choice.type };
  if (request.parallelToolCalls === false && base?.type !== "none") {
    return { ...(base ?? { type: "auto" }), disable_parallel_tool_use: true };
  }
  return base;
}
