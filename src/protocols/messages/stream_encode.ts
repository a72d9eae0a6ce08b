/**
 * IR events as a messages client's stream, in the grammar the Anthropic SDK's
 * `MessageStream` and Claude Code parse ("Streaming Messages"): `message_start` (with
 * the input usage, real when the upstream said, else the gateway's estimate, which
 * Claude Code reads there), blocks opened and closed in order with consecutive indexes
 * from 0 (text with `text_delta`; thinking with `thinking_delta` then `signature_delta`;
 * tool_use with `input_json_delta`), `message_delta` with the stop reason and the
 * usage, then `message_stop`. Event names equal each payload's `type`.
 */
import type { GatewayError } from "../../errors.ts";
import { streamErrorEvents } from "./errors.ts";
import { encodeUsage } from "./usage.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { ResponseEncodeContext, StreamEncoder } from "../../translate/codec.ts";
import type { IrEvent, IrFinish, IrOpaque, IrStreamPart } from "../../translate/ir.ts";
import { wrapOpaque } from "../../translate/opaque.ts";
import { type BlockDeltaType, VALUE_FIELDS } from "./block_delta.ts";
import { toolId } from "./content.ts";
import { stopOfFinish } from "./finish.ts";
import type { Usage } from "../../usage.ts";
import { estimatedUsage } from "../../translate/encoding.ts";

/**
 * The part being sent. A reasoning part's block starts with its first delta: redacted
 * state (data, no text) needs a `redacted_thinking` block rather than `thinking`.
 */
type Open =
  | { kind: "text" | "tool_call" }
  | { kind: "reasoning"; block?: "thinking" | "redacted_thinking" };

/** An encoder for one messages client stream. */
export function createMessagesStreamEncoder(context: ResponseEncodeContext): StreamEncoder {
  let started = false;
  let ended = false;
  let usage: Usage | undefined;
  let finish: { reason: IrFinish; stopSequence?: string } | undefined;
  let block = -1;
  let open: Open | undefined;

  const event = (type: string, fields: Record<string, unknown>): SseEvent => ({
    event: type,
    data: JSON.stringify({ type, ...fields }),
  });
  const start = (out: SseEvent[]) => {
    if (started) return;
    started = true;
    out.push(event("message_start", {
      message: {
        id: context.newId("msg_"),
        type: "message",
        role: "assistant",
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        // The API reports one output token here; the real count comes in message_delta.
        usage: { ...encodeUsage(usage ?? estimatedUsage(context)), output_tokens: 1 },
      },
    }));
  };
  const blockStart = (content: Record<string, unknown>, out: SseEvent[]) => {
    block++;
    out.push(event("content_block_start", { index: block, content_block: content }));
  };
  const thinkingStart = (reasoning: Extract<Open, { kind: "reasoning" }>, out: SseEvent[]) => {
    if (reasoning.block) return;
    reasoning.block = "thinking";
    blockStart({ type: "thinking", thinking: "", signature: "" }, out);
  };
  const close = (out: SseEvent[]) => {
    if (open === undefined) return;
    // A reasoning part that sent nothing is still a (empty) thinking block.
    if (open.kind === "reasoning") thinkingStart(open, out);
    out.push(event("content_block_stop", { index: block }));
    open = undefined;
  };
  const begin = (part: IrStreamPart, out: SseEvent[]) => {
    close(out);
    if (part.type === "reasoning") {
      open = { kind: "reasoning" };
    } else if (part.type === "tool_call") {
      open = { kind: "tool_call" };
      blockStart({ type: "tool_use", id: toolId(part.id), name: part.name, input: {} }, out);
    } else {
      // Messages has no refusal block: a refusal streams as text.
      open = { kind: "text" };
      blockStart({ type: "text", text: "" }, out);
    }
  };
  // The event most of a stream is made of: only its one string is encoded, the rest is fixed.
  const delta = (type: BlockDeltaType, value: string): SseEvent => {
    const fields = `"type":"${type}","${VALUE_FIELDS[type]}":${JSON.stringify(value)}`;
    const data = `{"type":"content_block_delta","index":${block},"delta":{${fields}}}`;
    return { event: "content_block_delta", data };
  };
  const opaque = (state: IrOpaque, out: SseEvent[]) => {
    if (open?.kind !== "reasoning" || open.block === "redacted_thinking") return;
    if (!open.block && state.kind === "anthropic_redacted") {
      open.block = "redacted_thinking";
      blockStart({ type: "redacted_thinking", data: state.value }, out);
      return;
    }
    thinkingStart(open, out);
    // Another provider's state travels wrapped, so it comes back when the client sends it.
    out.push(delta("signature_delta", wrapOpaque(state, "anthropic_signature")));
  };

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
          if (ir.text && open?.kind === "text") {
            out.push(delta("text_delta", ir.text));
          }
          break;
        case "reasoning_delta":
          if (ir.text && open?.kind === "reasoning" && open.block !== "redacted_thinking") {
            thinkingStart(open, out);
            out.push(delta("thinking_delta", ir.text));
          }
          break;
        case "reasoning_opaque":
          opaque(ir.opaque, out);
          break;
        case "arguments_delta":
          if (ir.json && open?.kind === "tool_call") {
            out.push(delta("input_json_delta", ir.json));
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
      // A stream cut without a finish still ends as the client expects: `end_turn`.
      const reason = finish?.reason ?? "stop";
      out.push(event("message_delta", {
        delta: {
          stop_reason: stopOfFinish(reason, finish?.stopSequence),
          stop_sequence: finish?.stopSequence ?? null,
        },
        usage: usage ? encodeUsage(usage) : { output_tokens: 0 },
      }));
      out.push(event("message_stop", {}));
      return out;
    },
    error(error: GatewayError): SseEvent[] {
      if (ended) return [];
      ended = true;
      // A strict client reads the error and stops: nothing else is closed first.
      return streamErrorEvents(error, context.requestId);
    },
  };
}
