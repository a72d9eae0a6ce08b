/**
 * An IR request as the body for a responses upstream (OpenAI `ResponseCreateParams`).
 *
 * | IR                  | responses                                                     |
 * |---------------------|---------------------------------------------------------------|
 * | system              | `instructions` (joined by blank lines)                        |
 * | turns               | input items (input_encode.ts); system turns `role: "system"`  |
 * | tools: function     | `{type: "function", …, strict}` (`strict` always written)     |
 * | tools: custom       | `{type: "custom", name, description, format}`                 |
 * | tools: web_search   | `web_search` (Anthropic's domains and location mapped)        |
 * | toolChoice          | `auto` / `required` / `none` / `{type: function or custom, name}` |
 * | maxOutputTokens     | `max_output_tokens` (at least 16, the API's minimum)          |
 * | temperature, topP   | the same; dropped with reasoning on (reasoning models refuse them) |
 * | reasoning           | `reasoning: {effort, summary}` + `include` encrypted content  |
 * | reasoning disabled  | dropped (models before gpt-5.1 reject effort `none`)          |
 * | output              | `text.format`                                                 |
 * | logprobs, topLogprobs | `include` output_text logprobs, `top_logprobs`              |
 * | user                | `user`                                                        |
 * | promptCacheKey      | `prompt_cache_key`; else the gateway's conversation name      |
 * | previousResponseId  | `previous_response_id`                                        |
 * | store               | `store` as the client set it, else `false` (stateless)        |
 * | stop, topK          | dropped (no equivalent)                                       |
 * | n > 1, audio        | refused                                                       |
 */

import { customToolNames } from "../chat/response_encode.ts";
import type { RequestEncodeContext } from "../../translate/codec.ts";
import { convertError } from "../../translate/errors.ts";
import type { IrOutputFormat, IrRequest, IrTool } from "../../translate/ir.ts";
import { effortOfBudget } from "../../translate/reasoning.ts";
import { encodeInput } from "./input_encode.ts";
import { type Drop, dropOnce } from "../../translate/encoding.ts";

type Item = Record<string, unknown>;

// `max_output_tokens` below this is a 400 ("Expected a value >= 16").
const MIN_OUTPUT_TOKENS = 16;

/** The responses upstream body of a request. */
export function encodeResponsesRequest(
  request: IrRequest,
  context: RequestEncodeContext,
): Record<string, unknown> {
  if (request.n !== undefined && request.n > 1) {
    throw convertError("n", "the responses protocol returns one answer per request");
  }
  if (request.audio) throw convertError("modalities", "responses has no audio output");
  const drop = dropOnce(context);
  const custom = customToolNames(request);
  const body: Record<string, unknown> = { model: context.model };
  if (request.system.length > 0) {
    if (request.system.some((part) => part.cacheControl)) {
      drop("cache_control", "responses caches prompts by itself (no cache markers)");
    }
    body.instructions = request.system.map((part) => part.text).join("\n\n");
  }
  const input = encodeInput(request.turns, custom, drop);
  body.input = input;
  const tools = request.tools.map((tool) => encodeTool(tool, drop));
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
  if (request.maxOutputTokens !== undefined) {
    if (request.maxOutputTokens < MIN_OUTPUT_TOKENS) {
      drop("max_output_tokens below 16", "the responses API's minimum is 16; 16 was sent");
    }
    body.max_output_tokens = Math.max(MIN_OUTPUT_TOKENS, request.maxOutputTokens);
  }
  const reasoning = request.reasoning?.enabled ? request.reasoning : undefined;
  if (request.temperature !== undefined || request.topP !== undefined) {
    if (reasoning) drop("temperature, top_p", "OpenAI reasoning models take no sampling settings");
    else {
      if (request.temperature !== undefined) body.temperature = request.temperature;
      if (request.topP !== undefined) body.top_p = request.topP;
    }
  }
  if (request.topK !== undefined) drop("top_k", "responses has no top_k");
  if (request.stop.length > 0) drop("stop", "responses has no stop sequences");
  const include: string[] = [];
  if (reasoning) {
    const effort = reasoning.effort ??
      (reasoning.budgetTokens !== undefined ? effortOfBudget(reasoning.budgetTokens) : undefined);
    // Without an effort the model's own default applies. A summary is asked for only when
    // the client asked: OpenAI answers 400 to organizations not verified for summaries.
    body.reasoning = {
      ...(effort ? { effort } : {}),
      ...(reasoning.summary ? { summary: reasoning.summary } : {}),
    };
  } else if (request.reasoning) {
    drop("reasoning (disabled)", "models before gpt-5.1 reject effort `none`: the default applies");
  }
  // Nothing is stored upstream: reasoning comes back encrypted, to be sent with the next turn.
  if (reasoning || input.some((item) => item.type === "reasoning")) {
    include.push("reasoning.encrypted_content");
  }
  if (request.logprobs || request.topLogprobs !== undefined) {
    include.push("message.output_text.logprobs");
    if (request.topLogprobs !== undefined) body.top_logprobs = request.topLogprobs;
  }
  if (include.length > 0) body.include = include;
  if (request.output && request.output.type !== "text") {
    body.text = { format: encodeFormat(request.output) };
  }
  if (request.user) body.user = request.user;
  // OpenAI routes requests with one key to the same cache: a client without one (messages
  // has no such field) gets its conversation's name, a hash that reveals no user id.
  const cacheKey = request.promptCacheKey ?? context.conversation;
  if (cacheKey) body.prompt_cache_key = cacheKey;
  if (request.previousResponseId) body.previous_response_id = request.previousResponseId;
  // The gateway keeps no state: the client sends the whole history each turn.
  body.store = request.store ?? false;
  if (request.stream) body.stream = true;
  return body;
}

function encodeTool(tool: IrTool, drop: Drop): Item {
  if (tool.kind === "web_search") return webSearchTool(tool.options, drop);
  if (tool.kind === "custom") {
    return {
      type: "custom",
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      ...(tool.format ? { format: tool.format } : {}),
    };
  }
  if (tool.cacheControl) drop("cache_control", "responses caches prompts by itself");
  return {
    type: "function",
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    parameters: tool.parameters,
    // This API reads an absent `strict` as true: say what the client meant.
    strict: tool.strict,
  };
}

// OpenAI's web search tool types (`WebSearchTool`, `WebSearchPreviewTool`, dated forms).
const RESPONSES_WEB_SEARCH = /^web_search(_preview)?(_\d{4}_\d{2}_\d{2})?$/;

/**
 * A responses client's web search tool as it was; Anthropic's `web_search_*` with its
 * allowed domains (`filters.allowed_domains`) and user location, which both APIs shape
 * alike (`approximate` with city, region, country, timezone).
 */
function webSearchTool(options: Record<string, unknown> | undefined, drop: Drop): Item {
  const type = typeof options?.type === "string" ? options.type : "";
  if (options && RESPONSES_WEB_SEARCH.test(type)) return options;
  const tool: Item = { type: "web_search" };
  if (Array.isArray(options?.allowed_domains)) {
    tool.filters = { allowed_domains: options.allowed_domains };
  }
  const location = options?.user_location;
  if (location && typeof location === "object") {
    tool.user_location = { ...location, type: "approximate" };
  }
  if (options?.blocked_domains != null || options?.max_uses != null) {
    drop("web_search blocked_domains, max_uses", "OpenAI's web search has no such settings");
  }
  return tool;
}

function encodeFormat(output: Exclude<IrOutputFormat, { type: "text" }>): Item {
  if (output.type === "json_object") return { type: "json_object" };
  return {
    type: "json_schema",
    name: output.name,
    schema: output.schema,
    strict: output.strict,
    ...(output.description !== undefined ? { description: output.description } : {}),
  };
}
