/**
 * An IR request as the body for a chat-completions upstream (OpenAI
 * `ChatCompletionCreateParams`; DeepSeek, vLLM, OpenRouter and Ollama take the same).
 *
 * | IR                    | chat                                                         |
 * |-----------------------|--------------------------------------------------------------|
 * | maxOutputTokens       | `max_tokens`; `max_completion_tokens` when reasoning is on   |
 * | stop                  | `stop` (array)                                               |
 * | tools: function       | `{type: "function", function}`, `strict` only when true      |
 * | tools: custom         | a function with one string parameter `input`                 |
 * | tools: web_search     | dropped (chat has no web search tool)                        |
 * | toolChoice            | `auto` / `required` / `none` / `{type: "function", …}`       |
 * | reasoning             | `reasoning_effort` (budget -> effort: translate/reasoning.ts) |
 * | output                | `response_format`                                            |
 * | user                  | `user` (the field every compatible server knows)             |
 * | promptCacheKey        | `prompt_cache_key` (only the client's own: see below)        |
 * | n, logprobs           | `n`, `logprobs`, `top_logprobs`                              |
 * | topK                  | dropped (not an OpenAI field)                                |
 * | previousResponseId    | refused                                                      |
 * | audio                 | refused (the voice and format it needs are not in the IR)    |
 *
 * Streams ask for `stream_options.include_usage`, so the upstream reports usage. A
 * `prompt_cache_key` goes only when the client sent one: many chat-compatible servers
 * answer 400 to a field they do not know, so none is made up for them.
 */
import type { RequestEncodeContext } from "../../translate/codec.ts";
import { convertError } from "../../translate/errors.ts";
import type { IrOutputFormat, IrRequest, IrTool, IrToolChoice } from "../../translate/ir.ts";
import { effortOfBudget } from "../../translate/reasoning.ts";
import { encodeMessages } from "./messages_encode.ts";
import { type Drop, dropOnce } from "../../translate/encoding.ts";

/** The chat-completions upstream body of a request. */
export function encodeChatRequest(
  request: IrRequest,
  context: RequestEncodeContext,
): Record<string, unknown> {
  if (request.previousResponseId) {
    throw convertError(
      "previous_response_id",
      "chat completions keeps no conversation state; send the whole history instead",
    );
  }
  if (request.audio) {
    throw convertError("modalities", "audio output cannot be requested through translation");
  }
  const drop = dropOnce(context);
  const body: Record<string, unknown> = {
    model: context.model,
    messages: encodeMessages(request.system, request.turns, drop),
  };
  const tools = request.tools.flatMap((tool) => encodeTool(tool, drop));
  if (tools.length > 0) {
    body.tools = tools;
    if (request.toolChoice) body.tool_choice = encodeToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) {
      body.parallel_tool_calls = request.parallelToolCalls;
    }
  }
  const reasoning = request.reasoning;
  if (request.maxOutputTokens !== undefined) {
    // `max_tokens` is what older compatible servers know; reasoning models need the new name.
    body[reasoning?.enabled ? "max_completion_tokens" : "max_tokens"] = request.maxOutputTokens;
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.topK !== undefined) drop("top_k", "chat completions has no top_k");
  if (request.stop.length > 0) body.stop = request.stop;
  if (request.n !== undefined && request.n !== 1) body.n = request.n;
  if (request.logprobs) body.logprobs = true;
  if (request.topLogprobs !== undefined) body.top_logprobs = request.topLogprobs;
  if (reasoning?.enabled) {
    body.reasoning_effort = reasoning.effort ??
      (reasoning.budgetTokens !== undefined ? effortOfBudget(reasoning.budgetTokens) : "medium");
  }
  if (reasoning?.summary) {
    drop("reasoning.summary", "chat completions has no reasoning summary setting");
  }
  if (request.output && request.output.type !== "text") {
    body.response_format = encodeOutput(request.output);
  }
  if (request.user) body.user = request.user;
  if (request.promptCacheKey) body.prompt_cache_key = request.promptCacheKey;
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

/** A chat tool; a freeform custom tool becomes a function taking its text as `input`. */
function encodeTool(tool: IrTool, drop: Drop): Record<string, unknown>[] {
  if (tool.kind === "web_search") {
    drop("tools: web_search", "chat completions has no web search tool");
    return [];
  }
  if (tool.kind === "custom") {
    const grammar = tool.format?.type === "grammar" ? grammarNote(tool.format) : "";
    const description = (tool.description ?? "") + grammar;
    return [{
      type: "function",
      function: {
        name: tool.name,
        ...(description ? { description } : {}),
        parameters: {
          type: "object",
          properties: { input: { type: "string", description: "The tool's freeform input." } },
          required: ["input"],
          additionalProperties: false,
        },
      },
    }];
  }
  if (tool.cacheControl) {
    drop("cache_control", "chat completions has no prompt-cache markers");
  }
  const fn: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) fn.description = tool.description;
  fn.parameters = tool.parameters;
  // Absent means not strict in chat; some compatible servers reject the field outright.
  if (tool.strict) fn.strict = true;
  return [{ type: "function", function: fn }];
}

// A function cannot carry a grammar; the model still needs to know the input's shape.
function grammarNote(format: Record<string, unknown>): string {
  const grammar = format.grammar as Record<string, unknown> | undefined;
  const definition = typeof grammar?.definition === "string"
    ? grammar.definition
    : typeof format.definition === "string"
    ? format.definition
    : "";
  const syntax = grammar?.syntax ?? format.syntax ?? "lark";
  return definition ? `\n\nThe input must follow this ${syntax} grammar:\n${definition}` : "";
}

function encodeToolChoice(choice: IrToolChoice): unknown {
  return choice.type === "tool"
    ? { type: "function", function: { name: choice.name } }
    : choice.type;
}

function encodeOutput(output: Exclude<IrOutputFormat, { type: "text" }>): Record<string, unknown> {
  if (output.type === "json_object") return { type: "json_object" };
  const schema: Record<string, unknown> = { name: output.name, schema: output.schema };
  if (output.description !== undefined) schema.description = output.description;
  schema.strict = output.strict;
  return { type: "json_schema", json_schema: schema };
}
