/**
 * A messages upstream stream (Anthropic "Streaming Messages") as IR events. Blocks map
 * one to one onto IR parts; server-tool blocks are skipped. Usage comes from
 * `message_start` (input) and each `message_delta` (cumulative output), through the
 * protocol's own usage tap; `ping` and unknown events are ignored.
 */
import { createUsageTap } from "../../protocols/messages/usage.ts";
import { streamError } from "../../protocols/messages/errors.ts";
import { fields, parseEventData, stringOr } from "../../protocols/json_read.ts";
import type { SseEvent } from "../../protocols/sse.ts";
import type { StreamDecoder } from "../codec.ts";
import type { IrEvent } from "../ir.ts";
import { finishOfStop } from "./response.ts";

/** The block being streamed: its IR index, and whether a tool call got any arguments. */
interface Open {
  upstream: number;
  index: number;
  kind: "text" | "reasoning" | "tool_call";
  args: boolean;
}

/** A decoder for one messages upstream stream. */
export function createMessagesStreamDecoder(): StreamDecoder {
  const tap = createUsageTap();
  let started = false;
  let failed = false;
  let next = 0;
  let open: Open | undefined;

  const close = (out: IrEvent[]) => {
    if (!open) return;
    if (open.kind === "tool_call" && !open.args) {
      out.push({ type: "arguments_delta", index: open.index, json: "{}" });
    }
    out.push({ type: "part_end", index: open.index });
    open = undefined;
  };
  const usage = (out: IrEvent[]) => {
    const known = tap.usage();
    if (known) out.push({ type: "usage", usage: known });
  };

  const blockStart = (data: Record<string, unknown>, out: IrEvent[]) => {
    close(out);
    const block = fields(data.content_block);
    const upstream = typeof data.index === "number" ? data.index : -1;
    const index = next;
    if (block.type === "text") {
      out.push({ type: "part_start", index, part: { type: "text" } });
      if (stringOr(block.text)) out.push({ type: "text_delta", index, text: stringOr(block.text) });
      open = { upstream, index, kind: "text", args: false };
    } else if (block.type === "thinking" || block.type === "redacted_thinking") {
      out.push({ type: "part_start", index, part: { type: "reasoning" } });
      if (block.type === "redacted_thinking") {
        const opaque = { kind: "anthropic_redacted" as const, value: stringOr(block.data) };
        out.push({ type: "reasoning_opaque", index, opaque });
      }
      open = { upstream, index, kind: "reasoning", args: false };
    } else if (block.type === "tool_use") {
      const part = {
        type: "tool_call" as const,
        id: stringOr(block.id),
        name: stringOr(block.name),
      };
      out.push({ type: "part_start", index, part });
      open = { upstream, index, kind: "tool_call", args: false };
    } else return; // server tools and their results: not the client's to see
    next++;
  };

  const blockDelta = (data: Record<string, unknown>, out: IrEvent[]) => {
    if (!open || data.index !== open.upstream) return;
    const delta = fields(data.delta);
    const { index } = open;
    if (delta.type === "text_delta" && stringOr(delta.text)) {
      out.push({ type: "text_delta", index, text: stringOr(delta.text) });
    } else if (delta.type === "thinking_delta" && stringOr(delta.thinking)) {
      out.push({ type: "reasoning_delta", index, text: stringOr(delta.thinking) });
    } else if (delta.type === "signature_delta" && stringOr(delta.signature)) {
      const opaque = { kind: "anthropic_signature" as const, value: stringOr(delta.signature) };
      out.push({ type: "reasoning_opaque", index, opaque });
    } else if (delta.type === "input_json_delta" && stringOr(delta.partial_json)) {
      open.args = true;
      out.push({ type: "arguments_delta", index, json: stringOr(delta.partial_json) });
    }
  };

  return {
    decode(event: SseEvent): IrEvent[] {
      if (failed) return [];
      const data = parseEventData(event.data);
      if (!data) return [];
      const out: IrEvent[] = [];
      const report = streamError(event);
      if (report) {
        failed = true;
        usage(out);
        out.push({ type: "error", error: report });
        return out;
      }
      tap.observe(event);
      switch (data.type) {
        case "message_start": {
          if (started) break;
          started = true;
          const message = fields(data.message);
          const start: IrEvent = {
            type: "start",
            id: stringOr(message.id),
            model: stringOr(message.model),
          };
          const known = tap.usage();
          if (known) start.usage = known;
          out.push(start);
          break;
        }
        case "content_block_start":
          blockStart(data, out);
          break;
        case "content_block_delta":
          blockDelta(data, out);
          break;
        case "content_block_stop":
          if (open && data.index === open.upstream) close(out);
          break;
        case "message_delta": {
          close(out);
          usage(out);
          const delta = fields(data.delta);
          if (delta.stop_reason != null) {
            const finish: IrEvent = { type: "finish", reason: finishOfStop(delta.stop_reason) };
            if (typeof delta.stop_sequence === "string") finish.stopSequence = delta.stop_sequence;
            out.push(finish);
          }
          break;
        }
      }
      return out;
    },
    end(): IrEvent[] {
      if (failed) return [];
      const out: IrEvent[] = [];
      close(out);
      return out;
    },
  };
}
