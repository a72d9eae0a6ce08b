/**
 * An IR request as the body for a Gemini upstream (Gemini API reference,
 * `models.generateContent` request body; "Function calling", "Thinking", "Structured
 * output"). The model and streaming go in the path, not the body (index.ts `upstream`).
 *
 * | IR                      | Gemini                                                        |
 * |-------------------------|---------------------------------------------------------------|
 * | system, system turns    | `systemInstruction.parts` (text)                              |
 * | turns                   | `contents` (contents_encode.ts)                               |
 * | tools: function         | one tool of `functionDeclarations` {name, description, `parametersJsonSchema`} |
 * | tools: custom           | a function taking `{input: string}` (a grammar told in the description) |
 * | tools: web_search       | `{googleSearch: {}}`                                           |
 * | toolChoice              | `toolConfig.functionCallingConfig.mode` AUTO / ANY / NONE; a tool: ANY with `allowedFunctionNames` |
 * | maxOutputTokens, temperature, topP, topK | `generationConfig` fields of the same names  |
 * | stop                    | `generationConfig.stopSequences` (the first 5: the API's limit) |
 * | reasoning off           | `thinkingConfig.thinkingBudget` 0                             |
 * | reasoning on            | `thinkingConfig` {includeThoughts, thinkingBudget: the budget, or the effort's (translate/reasoning.ts), within 512-24,576} |
 * | output json_object / json_schema | `responseMimeType` application/json (+ `responseJsonSchema`) |
 * | strict, parallelToolCalls, user, promptCacheKey, cache_control | dropped (no equivalent)  |
 * | n > 1, logprobs, topLogprobs, previousResponseId, audio | refused                         |
 *
 * Tool parameters go as `parametersJsonSchema`, which takes JSON Schema as the client wrote
 * it: `parameters` is an OpenAPI subset whose parser refuses the whole request over one
 * keyword it lacks (`$schema`, `additionalProperties`, `const`, ...), which agents' tool
 * schemas are full of. It and `responseJsonSchema` are `v1beta` fields, the API version a
 * Gemini channel's `base_url` names.
 */
import type { RequestEncodeContext } from "../../translate/codec.ts";
import { convertError } from "../../translate/errors.ts";
import type { IrRequest, IrTool } from "../../translate/ir.ts";
import { BUDGET_BY_EFFORT } from "../../translate/reasoning.ts";
import { encodeContents } from "./contents_encode.ts";
import { dropOnce } from "../../translate/encoding.ts";
import { type Drop } from "../../translate/encoding.ts";

// `GenerationConfig.stopSequences`: "The API supports up to 5 stop sequences".
const MAX_STOP_SEQUENCES = 5;
// Thinking budgets every Gemini 2.5 model takes (Flash-Lite's least, Flash's most); Gemini 3
// reads a budget as the nearest thinking level.
const MIN_BUDGET = 512;
const MAX_BUDGET = 24_576;

/** The Gemini upstream body of a request. */
export function encodeGeminiRequest(
  request: IrRequest,
  context: RequestEncodeContext,
): Record<string, unknown> {
  refuse(request);
  const drop = dropOnce(context);
  const body: Record<string, unknown> = { contents: encodeContents(request.turns, drop) };
  const system = [
    ...request.system,
    ...request.turns.flatMap((turn) => turn.role === "system" ? turn.parts : []),
  ];
  if (system.some((part) => part.cacheControl)) {
    drop("cache_control", "Gemini caches prompts by itself");
  }
  const instruction = system.filter((part) => part.text).map((part) => ({ text: part.text }));
  if (instruction.length > 0) body.systemInstruction = { parts: instruction };
  const tools = encodeTools(request.tools, drop);
  if (tools.length > 0) {
    body.tools = tools;
    const mode = functionCallingConfig(request);
    if (mode) body.toolConfig = { functionCallingConfig: mode };
  }
  if (request.parallelToolCalls === false) {
    drop("parallel_tool_calls", "Gemini has no switch for parallel function calls");
  }
  const config = generationConfig(request, drop);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  if (request.user) drop("user", "Gemini has no end-user field");
  if (request.promptCacheKey) drop("prompt_cache_key", "Gemini caches prompts by itself");
  return body;
}

function refuse(request: IrRequest): void {
  if (request.n !== undefined && request.n > 1) {
    throw convertError("n", "translated answers carry one candidate");
  }
  if (request.logprobs || request.topLogprobs !== undefined) {
    throw convertError(
      request.logprobs ? "logprobs" : "top_logprobs",
      "log probabilities do not come back through translation",
    );
  }
  if (request.previousResponseId) {
    throw convertError(
      "previous_response_id",
      "the Gemini API keeps no conversation state; send the whole history instead",
    );
  }
  if (request.audio) {
    throw convertError("modalities", "audio output cannot be requested through translation");
  }
}

function generationConfig(request: IrRequest, drop: Drop): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.stop.length > MAX_STOP_SEQUENCES) {
    drop(
      "stop",
      `Gemini takes at most ${MAX_STOP_SEQUENCES} stop sequences; the rest are left out`,
    );
  }
  if (request.stop.length > 0) config.stopSequences = request.stop.slice(0, MAX_STOP_SEQUENCES);
  const output = request.output;
  if (output && output.type !== "text") {
    config.responseMimeType = "application/json";
    if (output.type === "json_schema") config.responseJsonSchema = output.schema;
  }
  const reasoning = request.reasoning;
  if (reasoning && !reasoning.enabled) config.thinkingConfig = { thinkingBudget: 0 };
  else if (reasoning) {
    // The thoughts come back as reasoning, which every protocol shows its client.
    const thinking: Record<string, unknown> = { includeThoughts: true };
    const wanted = reasoning.budgetTokens ??
      (reasoning.effort ? BUDGET_BY_EFFORT[reasoning.effort] : undefined);
    if (wanted !== undefined) {
      thinking.thinkingBudget = Math.min(MAX_BUDGET, Math.max(MIN_BUDGET, wanted));
    }
    config.thinkingConfig = thinking;
  }
  return config;
}

function encodeTools(tools: IrTool[], drop: Drop): Record<string, unknown>[] {
  const declarations: Record<string, unknown>[] = [];
  let search = false;
  for (const tool of tools) {
    if (tool.kind === "web_search") {
      search = true;
      continue;
    }
    if (tool.kind === "custom") {
      const description = (tool.description ?? "") + grammarNote(tool.format);
      declarations.push({
        name: tool.name,
        ...(description ? { description } : {}),
        parametersJsonSchema: {
          type: "object",
          properties: { input: { type: "string", description: "The tool's freeform input." } },
          required: ["input"],
        },
      });
      continue;
    }
    if (tool.strict) drop("strict", "Gemini function declarations have no strict flag");
    if (tool.cacheControl) drop("cache_control", "Gemini caches prompts by itself");
    declarations.push({
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parametersJsonSchema: tool.parameters,
    });
  }
  const encoded: Record<string, unknown>[] = [];
  if (declarations.length > 0) encoded.push({ functionDeclarations: declarations });
  if (search) encoded.push({ googleSearch: {} });
  return encoded;
}

// A function cannot carry a grammar; the model still needs to know the input's shape.
function grammarNote(format: Record<string, unknown> | undefined): string {
  if (format?.type !== "grammar") return "";
  const grammar = format.grammar as Record<string, unknown> | undefined;
  const definition = grammar?.definition ?? format.definition;
  const syntax = grammar?.syntax ?? format.syntax ?? "lark";
  return typeof definition === "string" && definition
    ? `\n\nThe input must follow this ${syntax} grammar:\n${definition}`
    : "";
}

/** `functionCallingConfig` (`FunctionCallingConfig.Mode`) of the tool choice. */
function functionCallingConfig(request: IrRequest): Record<string, unknown> | undefined {
  const choice = request.toolChoice;
  switch (choice?.type) {
    case "auto":
      return { mode: "AUTO" };
    case "required":
      return { mode: "ANY" };
    case "none":
      return { mode: "NONE" };
    case "tool":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
  }
  return undefined;
}
