/**
 * Whole messages answers (Anthropic `Message`) <-> IR responses, and stop reasons.
 * Thinking keeps its `signature`; opaque state of another provider travels in the
 * signature wrapped (opaque.ts), so a client sending the history back returns it.
 */
import { fields, listOf, stringOr } from "../../protocols/json_read.ts";
import { encodeUsage, usageFromResponse } from "../../protocols/messages/usage.ts";
import type { ResponseEncodeContext } from "../codec.ts";
import type { IrAssistantPart, IrFinish, IrResponse } from "../ir.ts";
import { wrapOpaque } from "../opaque.ts";
import { toolId } from "./content.ts";

const FINISH_BY_STOP: Record<string, IrFinish> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
  pause_turn: "pause",
};

const STOP_BY_FINISH: Record<IrFinish, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
  pause: "pause_turn",
};

/** The IR finish of a messages `stop_reason`. */
export function finishOfStop(reason: unknown): IrFinish {
  return FINISH_BY_STOP[stringOr(reason)] ?? "stop";
}

/** The messages `stop_reason` of an IR finish (a matched stop sequence is `stop_sequence`). */
export function stopOfFinish(finish: IrFinish, stopSequence?: string): string {
  return finish === "stop" && stopSequence ? "stop_sequence" : STOP_BY_FINISH[finish];
}

/** Decodes a messages upstream's `message` body. */
export function decodeMessagesResponse(json: unknown): IrResponse {
  const body = fields(json);
  const parts: IrAssistantPart[] = [];
  for (const value of listOf(body.content)) {
    const block = fields(value);
    if (block.type === "text") parts.push({ type: "text", text: stringOr(block.text) });
    else if (block.type === "thinking") {
      const signature = stringOr(block.signature);
      parts.push({
        type: "reasoning",
        text: stringOr(block.thinking),
        ...(signature ? { opaque: { kind: "anthropic_signature", value: signature } } : {}),
      });
    } else if (block.type === "redacted_thinking") {
      parts.push({
        type: "reasoning",
        text: "",
        opaque: { kind: "anthropic_redacted", value: stringOr(block.data) },
      });
    } else if (block.type === "tool_use") {
      parts.push({
        type: "tool_call",
        id: stringOr(block.id),
        name: stringOr(block.name),
        arguments: JSON.stringify(block.input ?? {}),
      });
    }
  }
  const response: IrResponse = {
    id: stringOr(body.id),
    model: stringOr(body.model),
    parts,
    finish: finishOfStop(body.stop_reason),
  };
  if (typeof body.stop_sequence === "string") response.stopSequence = body.stop_sequence;
  const usage = usageFromResponse(json);
  if (usage) response.usage = usage;
  return response;
}

/** The content block of an answer's part, as a messages client reads it. */
export function blockOf(part: IrAssistantPart): Record<string, unknown> {
  switch (part.type) {
    case "text":
    case "refusal":
      return { type: "text", text: part.text };
    case "reasoning":
      if (part.opaque?.kind === "anthropic_redacted") {
        return { type: "redacted_thinking", data: part.opaque.value };
      }
      return {
        type: "thinking",
        thinking: part.text,
        signature: part.opaque ? wrapOpaque(part.opaque, "anthropic_signature") : "",
      };
    case "tool_call":
      return {
        type: "tool_use",
        id: toolId(part.id),
        name: part.name,
        input: inputOf(part.arguments),
      };
  }
}

/** Arguments JSON as the `input` object (`{}` when the model wrote none or broken JSON). */
export function inputOf(args: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(args);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed;
  } catch {
    // Broken or empty arguments: the call still goes out, with no input.
  }
  return {};
}

/** The client's `message` body for an answer. */
export function encodeMessagesResponse(
  response: IrResponse,
  context: ResponseEncodeContext,
): Record<string, unknown> {
  const zero = { input_tokens: 0, output_tokens: 0, cached_tokens: 0, cache_write_tokens: 0 };
  return {
    id: context.newId("msg_"),
    type: "message",
    role: "assistant",
    model: context.model,
    content: response.parts.map(blockOf),
    stop_reason: stopOfFinish(response.finish, response.stopSequence),
    stop_sequence: response.stopSequence ?? null,
    usage: encodeUsage(response.usage ?? zero),
  };
}
