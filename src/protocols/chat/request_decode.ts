/**
 * A chat-completions client body (OpenAI `ChatCompletionCreateParams`) as an IR request.
 * Fields with no IR equivalent are listed in `dropped`; the ones that change the answer
 * and that some target cannot honour (`n`, `logprobs`, audio output) are kept so the
 * target's encoder refuses them by name.
 */
import { asRecord, listOf, stringOr } from "../json_read.ts";
import type {
  IrOutputFormat,
  IrReasoningConfig,
  IrRequest,
  IrTool,
  IrToolChoice,
} from "../../translate/ir.ts";
import { effortNamed } from "../../translate/reasoning.ts";
import { decodeMessages } from "./messages_decode.ts";

// Every field this decoder reads; any other field a client sets is reported as dropped.
const READ = new Set([
  "model",
  "messages",
  "stream",
  "stream_options",
  "tools",
  "functions",
  "tool_choice",
  "function_call",
  "parallel_tool_calls",
  "max_tokens",
  "max_completion_tokens",
  "temperature",
  "top_p",
  "top_k",
  "stop",
  "n",
  "logprobs",
  "top_logprobs",
  "modalities",
  "audio",
  "reasoning_effort",
  "reasoning",
  "response_format",
  "user",
  "safety_identifier",
  "prompt_cache_key",
]);

/** Decodes a chat client body; throws `convert_request_failed` for content it cannot carry. */
export function decodeChatRequest(body: Record<string, unknown>): IrRequest {
  const { system, turns } = decodeMessages(listOf(body.messages));
  const dropped = Object.keys(body).filter((key) => !READ.has(key) && body[key] != null);
  // A participant's `name` has no place in the IR (a legacy `function` message's name is read).
  const named = listOf(body.messages).some((message) => {
    const record = asRecord(message);
    return record?.role !== "function" && typeof record?.name === "string";
  });
  if (named) dropped.push("messages[].name");
  const request: IrRequest = {
    model: stringOr(body.model),
    stream: body.stream === true,
    system,
    turns,
    tools: decodeTools(body, dropped),
    stop: typeof body.stop === "string"
      ? [body.stop]
      : listOf(body.stop).filter((s) => typeof s === "string"),
    dropped,
  };
  const choice = decodeToolChoice(body.tool_choice ?? body.function_call, request);
  if (choice) request.toolChoice = choice;
  if (typeof body.parallel_tool_calls === "boolean") {
    request.parallelToolCalls = body.parallel_tool_calls;
  }
  const max = numberOf(body.max_completion_tokens) ?? numberOf(body.max_tokens);
  if (max !== undefined) request.maxOutputTokens = max;
  setNumber(request, "temperature", body.temperature);
  setNumber(request, "topP", body.top_p);
  setNumber(request, "topK", body.top_k);
  setNumber(request, "n", body.n);
  if (body.logprobs === true) request.logprobs = true;
  setNumber(request, "topLogprobs", body.top_logprobs);
  if (listOf(body.modalities).includes("audio")) request.audio = true;
  else if (body.audio != null) dropped.push("audio");
  const reasoning = decodeReasoning(body);
  if (reasoning) request.reasoning = reasoning;
  const output = decodeOutput(asRecord(body.response_format));
  if (output) request.output = output;
  const user = stringOr(body.safety_identifier) || stringOr(body.user);
  if (user) request.user = user;
  const cacheKey = stringOr(body.prompt_cache_key);
  if (cacheKey) request.promptCacheKey = cacheKey;
  return request;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function setNumber(
  request: IrRequest,
  key: "temperature" | "topP" | "topK" | "n" | "topLogprobs",
  value: unknown,
): void {
  const number = numberOf(value);
  if (number !== undefined) request[key] = number;
}

/** `tools` (function and custom) and the legacy `functions`; other tool types are dropped. */
function decodeTools(body: Record<string, unknown>, dropped: string[]): IrTool[] {
  const tools: IrTool[] = [];
  listOf(body.tools).forEach((value, i) => {
    const tool = asRecord(value) ?? {};
    const fn = asRecord(tool.function);
    const custom = asRecord(tool.custom);
    if (tool.type === "function" && fn) tools.push(functionTool(fn));
    else if (tool.type === "custom" && custom) {
      const format = asRecord(custom.format);
      tools.push({
        kind: "custom",
        name: stringOr(custom.name),
        ...(typeof custom.description === "string" ? { description: custom.description } : {}),
        // An unconstrained `text` format says nothing a target needs.
        ...(format && format.type !== "text" ? { format } : {}),
      });
    } else dropped.push(`tools[${i}]`);
  });
  for (const value of listOf(body.functions)) tools.push(functionTool(asRecord(value) ?? {}));
  return tools;
}

function functionTool(fn: Record<string, unknown>): IrTool {
  return {
    kind: "function",
    name: stringOr(fn.name),
    ...(typeof fn.description === "string" ? { description: fn.description } : {}),
    // The reference: "Omitting `parameters` defines a function with an empty parameter list."
    parameters: asRecord(fn.parameters) ?? { type: "object", properties: {} },
    strict: fn.strict === true,
  };
}

/**
 * `tool_choice` (or legacy `function_call`): none / auto / required / a named function
 * or custom tool. `allowed_tools` narrows the tools offered to its list, under its mode.
 */
function decodeToolChoice(value: unknown, request: IrRequest): IrToolChoice | undefined {
  if (value === "none" || value === "auto" || value === "required") return { type: value };
  const choice = asRecord(value);
  if (!choice) return undefined;
  if (choice.type === "allowed_tools") {
    const allowed = asRecord(choice.allowed_tools) ?? {};
    const names = new Set(listOf(allowed.tools).map((tool) => nameOfChoice(asRecord(tool))));
    request.tools = request.tools.filter((tool) => "name" in tool && names.has(tool.name));
    return { type: allowed.mode === "required" ? "required" : "auto" };
  }
  const name = nameOfChoice(choice);
  return name ? { type: "tool", name } : undefined;
}

// `{type: "function", function: {name}}`, `{type: "custom", custom: {name}}`, legacy `{name}`.
function nameOfChoice(choice: Record<string, unknown> | undefined): string {
  return stringOr(asRecord(choice?.function)?.name) || stringOr(asRecord(choice?.custom)?.name) ||
    stringOr(choice?.name);
}

/**
 * `reasoning_effort` (`none` turns reasoning off), or the `reasoning` object OpenRouter
 * clients send (`effort`, `max_tokens` as a budget, `enabled`).
 */
function decodeReasoning(body: Record<string, unknown>): IrReasoningConfig | undefined {
  const object = asRecord(body.reasoning);
  const effort = stringOr(body.reasoning_effort) || stringOr(object?.effort);
  const budget = numberOf(object?.max_tokens);
  if (effort === "none" || object?.enabled === false) return { enabled: false };
  const config: IrReasoningConfig = { enabled: true };
  const mapped = effortNamed(effort);
  if (mapped) config.effort = mapped;
  if (budget !== undefined) config.budgetTokens = budget;
  return mapped || budget !== undefined || object?.enabled === true ? config : undefined;
}

/** `response_format`: text, JSON mode, or a JSON schema (OpenAI `ResponseFormatJSONSchema`). */
function decodeOutput(format: Record<string, unknown> | undefined): IrOutputFormat | undefined {
  return outputFormatOf(format?.type, asRecord(format?.json_schema) ?? {});
}

/**
 * An OpenAI output format: `text`, `json_object`, or `json_schema` whose name, schema,
 * strictness and description sit in `schema` (nested in chat's `json_schema`, beside the
 * type in responses' `text.format`).
 */
export function outputFormatOf(
  type: unknown,
  schema: Record<string, unknown>,
): IrOutputFormat | undefined {
  if (type === "text" || type === "json_object") return { type };
  if (type !== "json_schema") return undefined;
  return {
    type: "json_schema",
    name: stringOr(schema.name) || "response",
    schema: asRecord(schema.schema) ?? {},
    strict: schema.strict === true,
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
  };
}
