/**
 * An IR request as the body for a messages upstream (Anthropic `MessageCreateParams`).
 *
 * | IR                    | messages                                                        |
 * |-----------------------|-----------------------------------------------------------------|
 * | system, system turns  | `system` (blocks when any carries `cache_control`, else a string) |
 * | turns                 | `messages`; tool results first in a user turn; same roles merged |
 * | maxOutputTokens       | `max_tokens` (required: the model's `max_output_tokens` if unset) |
 * | stop                  | `stop_sequences`                                                |
 * | tools: function       | `{name, description, input_schema}` (strictness dropped)        |
 * | tools: custom         | a tool taking `{input: string}`                                 |
 * | tools: web_search     | `web_search_20250305`                                           |
 * | toolChoice            | auto / any / none / `{type: "tool", name}`                      |
 * | parallelToolCalls     | `tool_choice.disable_parallel_tool_use` (inverted)              |
 * | reasoning             | `thinking`, its budget clamped below `max_tokens` (reasoning.ts) |
 * | user                  | `metadata.user_id`                                              |
 * | output (JSON)         | dropped (no equivalent without a beta)                          |
 * | n > 1, logprobs, previousResponseId, audio | refused                                    |
 */
import type { RequestEncodeContext } from "../codec.ts";
import { convertError } from "../errors.ts";
import type { IrAssistantPart, IrRequest, IrText, IrTool, IrUserPart } from "../ir.ts";
import { BUDGET_BY_EFFORT } from "../reasoning.ts";
import { cacheField, encodeDocument, encodeImage, toolId } from "./content.ts";
import { inputOf } from "./response.ts";

type Block = Record<string, unknown>;
type Drop = (what: string, why: string) => void;

// Anthropic's smallest thinking budget.
const MIN_BUDGET = 1_024;

/** The messages upstream body of a request. */
export function encodeMessagesRequest(
  request: IrRequest,
  context: RequestEncodeContext,
): Record<string, unknown> {
  refuse(request);
  const drop = dropOnce(context.drop);
  const body: Record<string, unknown> = { model: context.model };
  const system = [
    ...request.system,
    ...request.turns.flatMap((t) => t.role === "system" ? t.parts : []),
  ];
  if (system.length > 0) body.system = encodeSystem(system);
  body.messages = encodeTurns(request, drop);
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
  const reasoning = request.reasoning;
  if (reasoning?.enabled) {
    const wanted = reasoning.budgetTokens ?? BUDGET_BY_EFFORT[reasoning.effort ?? "medium"];
    // The budget must stay below max_tokens, the client's cap (and what its hold covers).
    const budget = Math.min(Math.max(MIN_BUDGET, wanted), maxTokens - 1);
    if (budget < MIN_BUDGET) {
      drop(
        "reasoning",
        `max_tokens ${maxTokens} leaves no room for Anthropic's minimum thinking budget`,
      );
    } else {
      body.thinking = { type: "enabled", budget_tokens: budget };
      thinkingLimits(body, drop);
    }
  } else if (reasoning && !reasoning.enabled) body.thinking = { type: "disabled" };
  if (reasoning?.summary) drop("reasoning.summary", "messages shows thinking as it is");
  if (request.output && request.output.type !== "text") {
    drop("response_format", "messages has no structured output without a beta");
  }
  if (request.user) body.metadata = { user_id: request.user };
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
      "messages has no log probabilities",
    );
  }
  if (request.previousResponseId) {
    throw convertError(
      "previous_response_id",
      "the messages protocol keeps no conversation state; send the whole history instead",
    );
  }
  if (request.audio) throw convertError("modalities", "messages has no audio output");
}

function dropOnce(drop: Drop): Drop {
  const seen = new Set<string>();
  return (what, why) => {
    if (!seen.has(what)) {
      seen.add(what);
      drop(what, why);
    }
  };
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

function encodeSystem(parts: IrText[]): string | Block[] {
  if (!parts.some((part) => part.cacheControl)) return parts.map((part) => part.text).join("\n\n");
  return parts.filter((part) => part.text).map((part) => ({
    type: "text",
    text: part.text,
    ...cacheField(part),
  }));
}

/** The turns as messages: system turns went to `system`; consecutive same roles merge. */
function encodeTurns(request: IrRequest, drop: Drop): Block[] {
  const messages: { role: string; content: Block[] }[] = [];
  for (const turn of request.turns) {
    if (turn.role === "system") continue;
    const content = turn.role === "user"
      ? userBlocks(turn.parts, drop)
      : assistantBlocks(turn.parts, drop);
    if (content.length === 0) continue;
    const last = messages[messages.length - 1];
    if (last?.role === turn.role) {
      // Tool results must lead a user message: a merged turn's results move up.
      last.content = turn.role === "user"
        ? resultsFirst([...last.content, ...content])
        : [...last.content, ...content];
    } else messages.push({ role: turn.role, content });
  }
  return messages;
}

function resultsFirst(blocks: Block[]): Block[] {
  return [
    ...blocks.filter((block) => block.type === "tool_result"),
    ...blocks.filter((block) => block.type !== "tool_result"),
  ];
}

function userBlocks(parts: IrUserPart[], drop: Drop): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      // The API rejects empty text blocks.
      if (part.text) blocks.push({ type: "text", text: part.text, ...cacheField(part) });
    } else if (part.type === "tool_result") {
      const content = part.content.flatMap((item): Block[] => {
        if (item.type === "text") return item.text ? [{ type: "text", text: item.text }] : [];
        const encoded = item.type === "image" ? encodeImage(item) : encodeDocument(item);
        if (!encoded) drop(`tool_result ${item.type}`, "messages cannot point at its source");
        return encoded ? [encoded] : [];
      });
      const onlyText = content.every((block) => block.type === "text");
      blocks.push({
        type: "tool_result",
        tool_use_id: toolId(part.callId),
        content: onlyText ? content.map((block) => block.text).join("\n") : content,
        ...(part.isError ? { is_error: true } : {}),
        ...cacheField(part),
      });
    } else {
      const encoded = part.type === "image" ? encodeImage(part) : encodeDocument(part);
      if (encoded) blocks.push(encoded);
      else drop(`${part.type} ${part.source.kind} source`, "messages cannot point at it");
    }
  }
  return resultsFirst(blocks);
}

function assistantBlocks(parts: IrAssistantPart[], drop: Drop): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    if (part.type === "text" || part.type === "refusal") {
      if (part.text) blocks.push({ type: "text", text: part.text });
    } else if (part.type === "tool_call") {
      blocks.push({
        type: "tool_use",
        id: toolId(part.id),
        name: part.name,
        input: inputOf(part.arguments),
      });
    } else if (part.opaque?.kind === "anthropic_signature") {
      blocks.push({ type: "thinking", thinking: part.text, signature: part.opaque.value });
    } else if (part.opaque?.kind === "anthropic_redacted") {
      blocks.push({ type: "redacted_thinking", data: part.opaque.value });
    } else {
      // Thinking without Anthropic's signature would be rejected.
      drop("reasoning", "only Anthropic's own signed thinking can be sent back");
    }
  }
  return blocks;
}

function encodeTool(tool: IrTool, drop: Drop): Block[] {
  if (tool.kind === "web_search") {
    const options = tool.options;
    if (typeof options?.type === "string" && options.type.startsWith("web_search_")) {
      return [options];
    }
    return [{ type: "web_search_20250305", name: "web_search" }];
  }
  if (tool.kind === "custom") {
    return [{
      name: tool.name,
      ...(tool.description ? { description: tool.description } : {}),
      input_schema: {
        type: "object",
        properties: { input: { type: "string", description: "The tool's freeform input." } },
        required: ["input"],
      },
    }];
  }
  if (tool.strict) drop("strict", "messages tools are not strict");
  const schema = { type: "object", ...tool.parameters };
  return [{
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: schema,
    ...cacheField(tool),
  }];
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
