/**
 * Messages as Anthropic sends them (API reference: "Messages" and "Streaming Messages"):
 * `input_tokens` without cache tokens, a `ping` after the first `content_block_start` (as
 * the reference's example stream), thinking blocks with a signature, `message_delta`
 * restating the input counts as the API does today, and `content: []` for an empty answer.
 */
import { argumentPieces } from "./chat_wire.ts";
import {
  type FakeReply,
  finishOf,
  frame,
  frameList,
  pieces,
  type WireContext,
  type WireFrame,
} from "./reply.ts";

const STOP_REASON = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
} as const;

type Block = Record<string, unknown>;

function blocks(reply: FakeReply): Block[] {
  const out: Block[] = [];
  if (reply.reasoning) {
    out.push({
      type: "thinking",
      thinking: reply.reasoning.text,
      signature: reply.reasoning.opaque ?? "",
    });
  }
  if (reply.text) out.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls ?? []) {
    out.push({ type: "tool_use", id: call.id, name: call.name, input: JSON.parse(call.arguments) });
  }
  return out;
}

/** The whole message. */
export function messagesBody(reply: FakeReply, context: WireContext): Record<string, unknown> {
  return {
    id: context.id,
    type: "message",
    role: "assistant",
    model: context.model,
    content: blocks(reply),
    stop_reason: STOP_REASON[finishOf(reply)],
    stop_sequence: null,
    usage: messagesUsage(context, context.usage?.output ?? 0),
  };
}

/** The SSE frames of a messages stream. */
export function messagesFrames(reply: FakeReply, context: WireContext): string[] {
  return messagesStream(reply, context).map((frame) => frame.text);
}

/** The frames of a messages stream, classified (`message_delta`, `message_stop` close it). */
export function messagesStream(reply: FakeReply, context: WireContext): WireFrame[] {
  const list = frameList();
  const emit = (type: string, fields: Record<string, unknown>, kind?: "content" | "closing") =>
    list.add(frame({ type, ...fields }, type), kind);
  let pinged = false;
  const ping = () => {
    if (!pinged) emit("ping", {});
    pinged = true;
  };
  emit("message_start", {
    message: {
      id: context.id,
      type: "message",
      role: "assistant",
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: messagesUsage(context, 1),
    },
  });
  blocks(reply).forEach((block, index) => {
    if (block.type === "thinking") {
      emit("content_block_start", {
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      ping();
      for (const piece of pieces(String(block.thinking))) {
        const delta = { type: "thinking_delta", thinking: piece };
        emit("content_block_delta", { index, delta }, "content");
      }
      if (block.signature) {
        emit("content_block_delta", {
          index,
          delta: { type: "signature_delta", signature: block.signature },
        });
      }
    } else if (block.type === "text") {
      emit("content_block_start", { index, content_block: { type: "text", text: "" } });
      ping();
      for (const piece of pieces(String(block.text))) {
        emit(
          "content_block_delta",
          { index, delta: { type: "text_delta", text: piece } },
          "content",
        );
      }
    } else {
      // A tool call's start names the tool: content already.
      emit("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      }, "content");
      ping();
      for (const piece of ["", ...argumentPieces(JSON.stringify(block.input))]) {
        const delta = { type: "input_json_delta", partial_json: piece };
        emit("content_block_delta", { index, delta }, "content");
      }
    }
    emit("content_block_stop", { index });
  });
  ping();
  emit("message_delta", {
    delta: { stop_reason: STOP_REASON[finishOf(reply)], stop_sequence: null },
    usage: messagesUsage(context, context.usage?.output ?? 0),
  }, "closing");
  emit("message_stop", {}, "closing");
  return list.frames;
}

/** An `error` event in a messages stream (`overloaded_error` unless told). */
export function messagesErrorFrame(message: string, type = "overloaded_error"): string {
  return frame({ type: "error", error: { type, message } }, "error");
}

/** Anthropic's usage: `input_tokens` counts only what was neither read from nor written to cache. */
function messagesUsage({ usage }: WireContext, output: number) {
  if (!usage) return undefined;
  return {
    input_tokens: usage.input - usage.cached - usage.cacheWrite,
    cache_creation_input_tokens: usage.cacheWrite,
    cache_read_input_tokens: usage.cached,
    output_tokens: output,
    service_tier: "standard",
  };
}
