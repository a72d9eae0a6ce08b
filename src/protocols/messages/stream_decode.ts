/**
 * A messages upstream stream (Anthropic "Streaming Messages": `RawMessageStreamEvent`)
 * as IR events. Blocks map one to one onto IR parts, renumbered from 0 because
 * server-tool blocks are skipped. Usage comes from `message_start` (input) and each
 * `message_delta` (cumulative output, sometimes restating input), through the protocol's
 * own usage tap. `ping`, `citations_delta` and unknown events are ignored; an `error`
 * event (`overloaded_error` and the rest) becomes the IR error, after which nothing.
 */
import { asRecord, fields, parseEventData, stringOr } from "../json_read.ts";
import { streamError } from "./errors.ts";
import { createUsageTap } from "./usage.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { StreamDecoder } from "../../translate/codec.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { deltaValue, readBlockDelta } from "./block_delta.ts";
import { finishOfStop } from "./finish.ts";

/** The block being streamed: its upstream and IR indexes, and a tool call's input so far. */
interface Open {
  upstream: number;
  index: number;
  kind: "text" | "reasoning" | "tool_call";
  /** Whether input_json_delta arrived; else the input the block started with is sent. */
  args: boolean;
  initial: string;
}

/** A decoder for one messages upstream stream. */
export function createMessagesStreamDecoder(): StreamDecoder {
  const tap = createUsageTap();
  let started = false;
  let finished = false;
  let failed = false;
  let next = 0;
  let open: Open | undefined;

  const start = (message: Record<string, unknown>, out: IrEvent[]) => {
    if (started) return;
    started = true;
    const event: IrEvent = {
      type: "start",
      id: stringOr(message.id),
      model: stringOr(message.model),
    };
    const known = tap.usage();
    if (known) event.usage = known;
    out.push(event);
  };
  const close = (out: IrEvent[]) => {
    if (!open) return;
    if (open.kind === "tool_call" && !open.args) {
      // A call streamed without deltas still owes its arguments (the API's `{}`).
      out.push({ type: "arguments_delta", index: open.index, json: open.initial || "{}" });
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
    const opened = (kind: Open["kind"], initial = "") => {
      next++;
      open = { upstream, index, kind, args: false, initial };
    };
    if (block.type === "text") {
      out.push({ type: "part_start", index, part: { type: "text" } });
      const text = stringOr(block.text);
      if (text) out.push({ type: "text_delta", index, text });
      opened("text");
    } else if (block.type === "thinking") {
      out.push({ type: "part_start", index, part: { type: "reasoning" } });
      const text = stringOr(block.thinking);
      if (text) out.push({ type: "reasoning_delta", index, text });
      const value = stringOr(block.signature);
      if (value) {
        out.push({
          type: "reasoning_opaque",
          index,
          opaque: { kind: "anthropic_signature", value },
        });
      }
      opened("reasoning");
    } else if (block.type === "redacted_thinking") {
      out.push({ type: "part_start", index, part: { type: "reasoning" } });
      const opaque = { kind: "anthropic_redacted" as const, value: stringOr(block.data) };
      out.push({ type: "reasoning_opaque", index, opaque });
      opened("reasoning");
    } else if (block.type === "tool_use") {
      const part = {
        type: "tool_call" as const,
        id: stringOr(block.id),
        name: stringOr(block.name),
      };
      out.push({ type: "part_start", index, part });
      // Some compatible servers put the whole input in the start block and send no deltas.
      const input = asRecord(block.input);
      opened("tool_call", input && Object.keys(input).length > 0 ? JSON.stringify(input) : "");
    }
    // Anything else (server_tool_use, web_search_tool_result, ...) is not the client's.
  };

  /** A delta of the open block: `value` is the field its type carries (text, partial_json, ...). */
  const blockDelta = (upstream: unknown, type: unknown, value: string, out: IrEvent[]) => {
    if (!open || upstream !== open.upstream || !value) return;
    const { index } = open;
    if (type === "text_delta" && open.kind === "text") {
      out.push({ type: "text_delta", index, text: value });
    } else if (type === "thinking_delta" && open.kind === "reasoning") {
      out.push({ type: "reasoning_delta", index, text: value });
    } else if (type === "signature_delta" && open.kind === "reasoning") {
      out.push({
        type: "reasoning_opaque",
        index,
        opaque: { kind: "anthropic_signature", value },
      });
    } else if (type === "input_json_delta" && open.kind === "tool_call") {
      open.args = true;
      out.push({ type: "arguments_delta", index, json: value });
    }
  };

  const messageDelta = (data: Record<string, unknown>, out: IrEvent[]) => {
    close(out);
    usage(out);
    const delta = fields(data.delta);
    if (delta.stop_reason == null || finished) return;
    finished = true;
    const finish: IrEvent = { type: "finish", reason: finishOfStop(delta.stop_reason) };
    if (typeof delta.stop_sequence === "string") finish.stopSequence = delta.stop_sequence;
    out.push(finish);
  };

  return {
    decode(event: SseEvent): IrEvent[] {
      if (failed) return [];
      const out: IrEvent[] = [];
      // The usual event needs no parse; it reports no error and no usage, whatever its name.
      const quick = readBlockDelta(event.data);
      if (quick) {
        if (!started) start({}, out);
        if (!finished) blockDelta(quick.index, quick.type, quick.value, out);
        return out;
      }
      const data = parseEventData(event.data);
      if (!data) return out;
      const report = streamError(event);
      if (report) {
        failed = true;
        // Usage known so far goes first, so what was produced is billed.
        usage(out);
        out.push({ type: "error", error: report });
        return out;
      }
      tap.observe(event);
      if (data.type === "message_start") {
        start(fields(data.message), out);
        return out;
      }
      if (
        data.type !== "content_block_start" && data.type !== "content_block_delta" &&
        data.type !== "content_block_stop" && data.type !== "message_delta"
      ) return out; // ping, message_stop, and events this decoder does not know
      // A server that skipped message_start still gets the grammar's `start` first.
      start({}, out);
      if (data.type === "message_delta") messageDelta(data, out);
      else if (finished) return out;
      else if (data.type === "content_block_start") blockStart(data, out);
      else if (data.type === "content_block_delta") {
        const delta = fields(data.delta);
        blockDelta(data.index, delta.type, deltaValue(delta), out);
      } else if (open && data.index === open.upstream) close(out);
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
