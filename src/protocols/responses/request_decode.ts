/**
 * A responses client body (OpenAI `ResponseCreateParams`) as an IR request, including
 * everything Codex CLI sends (`prompt_cache_key` kept; `text.verbosity`, `client_metadata`,
 * namespace and hosted tools: dropped, never refused).
 *
 * | responses                                   | IR                                        |
 * |---------------------------------------------|-------------------------------------------|
 * | `instructions` + leading system/developer   | system                                    |
 * | `input` (string or items)                   | turns (input_decode.ts)                   |
 * | `tools`: function (`strict` absent = true)  | function tools                            |
 * | `tools`: custom (freeform, grammar)         | custom tools                              |
 * | `tools`: `web_search*`                      | web_search (the tool object kept)         |
 * | `tools`: namespace, hosted, unknown         | dropped                                   |
 * | `tool_choice`, `parallel_tool_calls`        | toolChoice, parallelToolCalls             |
 * | `max_output_tokens`, `temperature`, `top_p` | the same                                  |
 * | `reasoning` {effort, summary}               | reasoning (`none` = off; xhigh, max: high) |
 * | `text.format`                               | output; `text.verbosity` dropped          |
 * | `include` output_text logprobs, `top_logprobs` | logprobs, topLogprobs                  |
 * | `safety_identifier` / `user`                | user                                      |
 * | `prompt_cache_key`                          | promptCacheKey                            |
 * | `previous_response_id`, `store`             | kept (targets other than responses refuse the first) |
 * | `conversation`, `prompt`, `background`      | refused: OpenAI's stored state            |
 */
import { asRecord, listOf, stringOr } from "../json_read.ts";
import { convertError } from "../../translate/errors.ts";
import { effortNamed } from "../../translate/reasoning.ts";
import { outputFormatOf } from "../chat/request_decode.ts";
import type {
  IrOutputFormat,
  IrReasoningConfig,
  IrRequest,
  IrText,
  IrTool,
  IrToolChoice,
} from "../../translate/ir.ts";
import { decodeInput } from "./input_decode.ts";

// Every field this decoder reads; any other field a client sets is reported as dropped.
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
  "top_logprobs",
  "reasoning",
  "text",
  "include",
  "user",
  "safety_identifier",
  "prompt_cache_key",
  "previous_response_id",
  "store",
  "background",
]);

// The include asking for log probabilities. Encrypted reasoning needs no note (encoders ask
// for it whenever reasoning is on); the other includes belong to hosted tools, dropped.
const LOGPROBS_INCLUDE = "message.output_text.logprobs";

/** Decodes a responses client body; throws `convert_request_failed` for what it cannot carry. */
export function decodeResponsesRequest(body: Record<string, unknown>): IrRequest {
  refuseStoredState(body);
  const dropped = Object.keys(body).filter((key) => !READ.has(key) && body[key] != null);
  const system: IrText[] = [];
  const instructions = stringOr(body.instructions);
  if (instructions) system.push({ type: "text", text: instructions });
  const turns = decodeInput(body.input, system, dropped);
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
  const max = numberOf(body.max_output_tokens);
  if (max !== undefined) request.maxOutputTokens = max;
  const temperature = numberOf(body.temperature);
  if (temperature !== undefined) request.temperature = temperature;
  const topP = numberOf(body.top_p);
  if (topP !== undefined) request.topP = topP;
  decodeLogprobs(body, request);
  const reasoning = decodeReasoning(asRecord(body.reasoning));
  if (reasoning) request.reasoning = reasoning;
  const text = asRecord(body.text);
  const output = decodeFormat(asRecord(text?.format));
  if (output) request.output = output;
  if (text?.verbosity != null) dropped.push("text.verbosity");
  const user = stringOr(body.safety_identifier) || stringOr(body.user);
  if (user) request.user = user;
  const cacheKey = stringOr(body.prompt_cache_key);
  if (cacheKey) request.promptCacheKey = cacheKey;
  const previous = stringOr(body.previous_response_id);
  if (previous) request.previousResponseId = previous;
  if (typeof body.store === "boolean") request.store = body.store;
  return request;
}

/**
 * A stored conversation or prompt template supplies input only OpenAI has, and a
 * background response is polled from OpenAI: a translated request cannot honour them.
 */
function refuseStoredState(body: Record<string, unknown>): void {
  if (body.conversation != null) {
    throw convertError("conversation", "it names a conversation stored by OpenAI");
  }
  if (body.prompt != null) throw convertError("prompt", "it names a prompt stored by OpenAI");
  if (body.background === true) {
    throw convertError("background", "background responses are kept and polled on OpenAI");
  }
}

function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Log probabilities come only with `include: ["message.output_text.logprobs"]`. */
function decodeLogprobs(body: Record<string, unknown>, request: IrRequest): void {
  const include = listOf(body.include);
  for (const value of include) {
    if (value !== LOGPROBS_INCLUDE && value !== "reasoning.encrypted_content") {
      request.dropped.push(`include (${String(value)})`);
    }
  }
  const top = numberOf(body.top_logprobs);
  if (include.includes(LOGPROBS_INCLUDE)) {
    request.logprobs = true;
    if (top !== undefined) request.topLogprobs = top;
  } else if (top) request.dropped.push("top_logprobs");
}

// Hosted web search in its GA, preview and dated forms (`WebSearchTool`, `WebSearchPreviewTool`).
const WEB_SEARCH = /^web_search(_preview)?(_\d{4}_\d{2}_\d{2})?$/;

/** Function tools, custom tools and web search; namespace and hosted tools are dropped. */
function decodeTools(tools: unknown[], dropped: string[]): IrTool[] {
  const out: IrTool[] = [];
  tools.forEach((value, i) => {
    const tool = asRecord(value) ?? {};
    const type = stringOr(tool.type);
    const description = typeof tool.description === "string"
      ? { description: tool.description }
      : {};
    if (type === "function") {
      out.push({
        kind: "function",
        name: stringOr(tool.name),
        ...description,
        // The reference: omitted or null `parameters` is a function without parameters.
        parameters: asRecord(tool.parameters) ?? { type: "object", properties: {} },
        // This API's default is strict: only an explicit `false` is not.
        strict: tool.strict !== false,
      });
    } else if (type === "custom") {
      const format = asRecord(tool.format);
      out.push({
        kind: "custom",
        name: stringOr(tool.name),
        ...description,
        // An unconstrained `text` format says nothing a target needs.
        ...(format && format.type !== "text" ? { format } : {}),
      });
    } else if (WEB_SEARCH.test(type)) out.push({ kind: "web_search", options: tool });
    else dropped.push(`tools[${i}] (${type || "typeless"})`);
  });
  return out;
}

/**
 * `tool_choice`: none / auto / required, a named function or custom tool, or
 * `allowed_tools` (the tools narrowed to its list, under its mode). A choice of a hosted
 * tool, or of a tool that was dropped, is dropped too: the target has no such tool.
 */
function decodeToolChoice(value: unknown, request: IrRequest): IrToolChoice | undefined {
  if (value === "none" || value === "auto" || value === "required") return { type: value };
  const choice = asRecord(value);
  if (!choice) return undefined;
  if (choice.type === "allowed_tools") {
    const allowed = listOf(choice.tools).map((tool) => asRecord(tool) ?? {});
    request.tools = request.tools.filter((tool) =>
      allowed.some((entry) =>
        tool.kind === "web_search"
          ? WEB_SEARCH.test(stringOr(entry.type))
          : entry.name === tool.name
      )
    );
    return { type: choice.mode === "required" ? "required" : "auto" };
  }
  const name = stringOr(choice.name);
  const known = request.tools.some((tool) => tool.kind !== "web_search" && tool.name === name);
  if ((choice.type === "function" || choice.type === "custom") && known) {
    return { type: "tool", name };
  }
  request.dropped.push(`tool_choice (${stringOr(choice.type) || "typeless"})`);
  return undefined;
}

/**
 * `reasoning` (`Shared.Reasoning`): effort `none` turns it off; an object without an
 * effort (Codex sends only `summary`) asks for the model's default reasoning.
 */
function decodeReasoning(
  reasoning: Record<string, unknown> | undefined,
): IrReasoningConfig | undefined {
  if (!reasoning) return undefined;
  const effort = stringOr(reasoning.effort);
  if (effort === "none") return { enabled: false };
  const config: IrReasoningConfig = { enabled: true };
  const named = effortNamed(effort);
  if (named) config.effort = named;
  // `generate_summary` is the deprecated name of `summary`.
  const summary = stringOr(reasoning.summary) || stringOr(reasoning.generate_summary);
  if (summary) config.summary = summary;
  return config;
}

/** `text.format`: text, JSON mode or a JSON schema (`ResponseFormatTextJSONSchemaConfig`). */
function decodeFormat(format: Record<string, unknown> | undefined): IrOutputFormat | undefined {
  return outputFormatOf(format?.type, format ?? {});
}
