/**
 * IR events as a messages client's stream, in the grammar the Anthropic SDK's
 * `MessageStream` and Claude Code parse: `message_start` (with the input usage, real
 * when the upstream said, else the gateway's estimate), blocks opened and closed in
 * order with consecutive indexes from 0, `message_delta` with the stop reason and the
 * usage, then `message_stop`. Event names equal each payload's `type`.
 */
import type { GatewayError } from "../../errors.ts";
import { protocolOf } from "../../protocols/index.ts";
import { encodeUsage } from "../../protocols/messages/usage.ts";
import type { SseEvent } from "../../protocols/sse.ts";
import type { Usage } from "../../protocols/types.ts";
import type { ResponseEncodeContext, StreamEncoder } from "../codec.ts";
import type { IrEvent, IrFinish, IrStreamPart } from "../ir.ts";
import { wrapOpaque } from "../opaque.ts";
import { toolId } from "./content.ts";
import { stopOfFinish } from "./response.ts";

/** An encoder for one messages client stream. */
export function createMessagesStreamEncoder(context: ResponseEncodeContext): StreamEncoder {
  let started = false;
  let ended = false;
  let usage: Usage | undefined;
  let finish: { reason: IrFinish; stopSequence?: string } | undefined;
  let block = -1;
  let open: IrStreamPart["type"] | undefined;

  const event = (type: string, fields: Record<string, unknown>): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, ...fields }),
  });
  const start = (out: SseEvent[]) => {
    if (started) return;
    started = true;
    const input = usage ?? {
      input_tokens: context.inputTokensHint,
      output_tokens: 0,
      cached_tokens: 0,
      cache_write_tokens: 0,
    };
    out.push(event("message_start", {
      message: {
        id: context.newId("msg_"),
        type: "message",
        role: "assistant",
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...encodeUsage(input), output_tokens: 1 },
      },
    }));
  };
  const close = (out: SseEvent[]) => {
    if (open === undefined) return;
    out.push(event("content_block_stop", { index: block }));
    open = undefined;
  };
  const begin = (part: IrStreamPart, out: SseEvent[]) => {
    close(out);
    block++;
    open = part.type;
    const content = part.type === "reasoning"
      ? { type: "thinking", thinking: "", signature: "" }
      : part.type === "tool_call"
      ? { type: "tool_use", id: toolId(part.id), name: part.name, input: {} }
      : { type: "text", text: "" };
    out.push(event("content_block_start", { index: block, content_block: content }));
  };
  const delta = (fields: Record<string, unknown>) =>
    event("content_block_delta", { index: block, delta: fields });

  return {
    encode(ir: IrEvent): SseEvent[] {
      if (ended) return [];
      const out: SseEvent[] = [];
      switch (ir.type) {
        case "start":
          if (ir.usage) usage = ir.usage;
          start(out);
          return out;
        case "usage":
          usage = ir.usage;
          return out;
        case "finish":
          finish = { reason: ir.reason, stopSequence: ir.stopSequence };
          return out;
        case "error":
          return out;
      }
      start(out);
      switch (ir.type) {
        case "part_start":
          begin(ir.part, out);
          break;
        case "part_end":
          close(out);
          break;
        case "text_delta":
        case "refusal_delta":
          if (ir.text && open !== undefined) out.push(delta({ type: "text_delta", text: ir.text }));
          break;
        case "reasoning_delta":
          if (ir.text && open === "reasoning") {
            out.push(delta({ type: "thinking_delta", thinking: ir.text }));
          }
          break;
        case "reasoning_opaque":
          if (open === "reasoning") {
            const signature = wrapOpaque(ir.opaque, "anthropic_signature");
            out.push(delta({ type: "signature_delta", signature }));
          }
          break;
        case "arguments_delta":
          if (ir.json && open === "tool_call") {
            out.push(delta({ type: "input_json_delta", partial_json: ir.json }));
          }
          break;
      }
      return out;
    },
    end(): SseEvent[] {
      if (ended) return [];
      ended = true;
      const out: SseEvent[] = [];
      start(out);
      close(out);
      const reason = finish?.reason ?? "stop";
      const counts = usage ? encodeUsage(usage) : { output_tokens: 0 };
      out.push(event("message_delta", {
        delta: {
          stop_reason: stopOfFinish(reason, finish?.stopSequence),
          stop_sequence: finish?.stopSequence ?? null,
        },
        usage: counts,
      }));
      out.push(event("message_stop", {}));
      return out;
    },
    error(error: GatewayError): SseEvent[] {
      if (ended) return [];
      ended = true;
      return protocolOf("messages").streamErrorEvents(error, context.requestId);
    },
  };
}
