/**
 * A responses upstream stream (OpenAI `ResponseStreamEvent`s) as IR events: message
 * content parts, reasoning items and tool calls become parts in output order; the
 * terminal `response.completed` / `.incomplete` gives the usage and the finish;
 * `response.failed` and `error` end it. Tolerates what compatible servers do: events it
 * does not need (ignored), `obfuscation`, `[DONE]`, content without its `*.added` event,
 * text only in `*.done` events, items only in `output_item.done`, a stream whose output
 * comes only in `response.completed`, and reasoning as summaries or raw `reasoning_text`.
 */
import { fields, parseEventData, stringOr } from "../json_read.ts";
import { usageFromResponse } from "./usage.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { StreamDecoder } from "../../translate/codec.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { DELTA_KINDS, type DeltaType, readDeltaEvent } from "./delta_event.ts";
import { finishOfResponse } from "./finish.ts";
import { callOfItem, reasoningOfItem } from "./items.ts";
import { decodeResponsesResponse } from "./response_decode.ts";
import { emitPart, errorOf, escapeInput, type Open, type OpenKind } from "./stream_parts.ts";

type Data = Record<string, unknown>;

/** A decoder for one responses upstream stream. */
export function createResponsesStreamDecoder(): StreamDecoder {
  return new ResponsesStreamDecoder();
}

class ResponsesStreamDecoder implements StreamDecoder {
  #started = false;
  #ended = false;
  #next = 0;
  #open: Open | undefined;
  #calledTools = false;
  /** The message item being streamed and how many of its content parts were seen. */
  #message: { itemId: string; seen: number } | undefined;

  decode(event: SseEvent): IrEvent[] {
    if (this.#ended) return [];
    const out: IrEvent[] = [];
    // The usual event needs no parse; only one named `error` reports an error whatever it holds.
    const quick = event.event === "error" ? undefined : readDeltaEvent(event.data);
    if (quick) {
      if (!this.#started) this.#start({}, out);
      this.#deltaEvent(quick.type, quick.itemId, quick.delta, out);
      return out;
    }
    const data = parseEventData(event.data);
    if (!data) return out;
    const error = errorOf(event, data);
    if (error) {
      this.#ended = true;
      const usage = usageFromResponse(data.response);
      if (usage) out.push({ type: "usage", usage });
      out.push({ type: "error", error });
      return out;
    }
    const type = stringOr(data.type);
    if (type === "response.created" || type === "response.in_progress") {
      this.#start(fields(data.response), out);
    } else if (type === "response.completed" || type === "response.incomplete") {
      this.#terminal(fields(data.response), out);
    } else if (type.startsWith("response.")) {
      this.#start({}, out);
      this.#content(type, data, out);
    }
    return out;
  }

  end(): IrEvent[] {
    if (this.#ended) return [];
    this.#ended = true;
    const out: IrEvent[] = [];
    this.#close(out);
    return out;
  }

  #start(response: Data, out: IrEvent[]): void {
    if (this.#started) return;
    this.#started = true;
    const start: IrEvent = {
      type: "start",
      id: stringOr(response.id),
      model: stringOr(response.model),
    };
    if (typeof response.created_at === "number") start.created = response.created_at;
    out.push(start);
  }

  #terminal(response: Data, out: IrEvent[]): void {
    this.#start(response, out);
    this.#close(out);
    // A server that sent no item events puts the whole output in the terminal response.
    if (this.#next === 0) {
      for (const part of decodeResponsesResponse(response).parts) {
        if (part.type === "tool_call") this.#calledTools = true;
        emitPart(part, this.#next++, out);
      }
    }
    this.#ended = true;
    const usage = usageFromResponse(response);
    if (usage) out.push({ type: "usage", usage });
    out.push({ type: "finish", reason: finishOfResponse(response, this.#calledTools) });
  }

  #content(type: string, data: Data, out: IrEvent[]): void {
    const itemId = stringOr(data.item_id);
    switch (type) {
      case "response.output_item.added":
        return this.#itemAdded(fields(data.item), out);
      case "response.output_item.done":
        return this.#itemDone(fields(data.item), out);
      case "response.content_part.added":
      case "response.content_part.done": {
        const part = fields(data.part);
        const index = typeof data.content_index === "number" ? data.content_index : 0;
        if (part.type === "reasoning_text") {
          // Raw reasoning parts in a row read as the whole text does: blank-line separated.
          const open = this.#ensure("reasoning", itemId, out);
          if (type.endsWith("added") && index > 0 && open.summaries === 0) {
            this.#delta("reasoning", itemId, "\n\n", out);
          }
          if (type.endsWith("added")) open.streamed = false;
          return;
        }
        const kind = part.type === "refusal" ? "refusal" : "text";
        if (type.endsWith("added")) return void this.#openText(kind, itemId, index, out);
        this.#fallback(kind, itemId, stringOr(part.text) || stringOr(part.refusal), out);
        if (this.#open?.kind === kind) this.#close(out);
        return;
      }
      case "response.output_text.delta":
      case "response.refusal.delta":
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
        return this.#deltaEvent(type, itemId, stringOr(data.delta), out);
      case "response.output_text.done":
        return this.#fallback("text", itemId, stringOr(data.text), out);
      case "response.refusal.done":
        return this.#fallback("refusal", itemId, stringOr(data.refusal), out);
      case "response.reasoning_summary_part.added": {
        const open = this.#ensure("reasoning", itemId, out);
        if (typeof data.summary_index === "number" && data.summary_index > 0) {
          this.#delta("reasoning", itemId, "\n\n", out);
        }
        open.summaries++;
        open.streamed = false;
        return;
      }
      case "response.reasoning_summary_text.done":
        return this.#fallback("reasoning", itemId, stringOr(data.text), out);
      case "response.reasoning_summary_part.done":
        return this.#fallback("reasoning", itemId, stringOr(fields(data.part).text), out);
      case "response.reasoning_text.done":
        if (this.#open?.kind === "reasoning" && this.#open.summaries > 0) return;
        return this.#fallback("reasoning", itemId, stringOr(data.text), out);
      case "response.function_call_arguments.done":
        return this.#fallback("tool_call", itemId, stringOr(data.arguments), out);
      case "response.custom_tool_call_input.done":
        return this.#fallback("tool_call", itemId, stringOr(data.input), out);
    }
  }

  /** A `*.delta` event's piece of text, for the open part of its kind. */
  #deltaEvent(type: DeltaType, itemId: string, text: string, out: IrEvent[]): void {
    // Summaries, when a server sends both, are what the whole answer shows.
    const summarized = this.#open?.kind === "reasoning" && this.#open.summaries > 0;
    if (type === "response.reasoning_text.delta" && summarized) return;
    this.#delta(DELTA_KINDS[type], itemId, text, out);
  }

  #itemAdded(item: Data, out: IrEvent[]): void {
    this.#close(out);
    this.#message = undefined;
    const itemId = stringOr(item.id);
    if (item.type === "message") this.#message = { itemId, seen: 0 };
    else if (item.type === "reasoning") this.#ensure("reasoning", itemId, out);
    else if (item.type === "function_call" || item.type === "custom_tool_call") {
      this.#openCall(item, out);
    }
  }

  #itemDone(item: Data, out: IrEvent[]): void {
    const itemId = stringOr(item.id);
    if (item.type === "message") {
      if (this.#open?.kind === "text" || this.#open?.kind === "refusal") this.#close(out);
      // Content parts the server never streamed come whole with the item.
      const seen = this.#message?.itemId === itemId ? this.#message.seen : 0;
      const content = Array.isArray(item.content) ? item.content.slice(seen) : [];
      for (const part of decodeResponsesResponse({ output: [{ ...item, content }] }).parts) {
        emitPart(part, this.#next++, out);
      }
      this.#message = undefined;
    } else if (item.type === "reasoning") {
      const open = this.#ensure("reasoning", itemId, out);
      const reasoning = reasoningOfItem(item);
      if (!open.any && reasoning.text) this.#delta("reasoning", itemId, reasoning.text, out);
      if (reasoning.opaque) {
        out.push({ type: "reasoning_opaque", index: open.index, opaque: reasoning.opaque });
      }
      this.#close(out);
    } else if (item.type === "function_call" || item.type === "custom_tool_call") {
      const open = this.#open?.kind === "tool_call" && this.#open.itemId === itemId
        ? this.#open
        : this.#openCall(item, out);
      const text = item.type === "custom_tool_call"
        ? stringOr(item.input)
        : stringOr(item.arguments);
      if (!open.any && text) this.#delta("tool_call", itemId, text, out);
      this.#close(out);
    }
  }

  #openCall(item: Data, out: IrEvent[]): Open {
    this.#close(out);
    this.#calledTools = true;
    const call = callOfItem(item);
    const custom = item.type === "custom_tool_call";
    const open = this.#begin("tool_call", stringOr(item.id), custom);
    out.push({
      type: "part_start",
      index: open.index,
      part: {
        type: "tool_call",
        id: call.id,
        name: call.name,
        ...(call.itemId ? { itemId: call.itemId } : {}),
      },
    });
    // A custom tool's raw input streams inside the JSON text `{"input": "…"}`.
    if (custom) out.push({ type: "arguments_delta", index: open.index, json: '{"input":"' });
    return open;
  }

  #openText(kind: "text" | "refusal", itemId: string, contentIndex: number, out: IrEvent[]) {
    this.#close(out);
    if (this.#message) this.#message.seen = Math.max(this.#message.seen, contentIndex + 1);
    const open = this.#begin(kind, itemId, false);
    const part = { type: kind, ...(itemId ? { itemId } : {}) };
    out.push({ type: "part_start", index: open.index, part });
    return open;
  }

  /** The open part of this kind and item, opened (text, reasoning) when another is open. */
  #ensure(kind: OpenKind, itemId: string, out: IrEvent[]): Open {
    const open = this.#open;
    if (open?.kind === kind && (!itemId || !open.itemId || open.itemId === itemId)) return open;
    if (kind === "reasoning") {
      this.#close(out);
      const opened = this.#begin("reasoning", itemId, false);
      const part = { type: "reasoning" as const, ...(itemId ? { itemId } : {}) };
      out.push({ type: "part_start", index: opened.index, part });
      return opened;
    }
    const index = this.#message?.itemId === itemId ? this.#message.seen : 0;
    return kind === "tool_call"
      ? this.#openCall({ type: "function_call", id: itemId }, out)
      : this.#openText(kind, itemId, index, out);
  }

  #begin(kind: OpenKind, itemId: string, custom: boolean): Open {
    const open: Open = {
      kind,
      index: this.#next++,
      itemId,
      custom,
      any: false,
      streamed: false,
      summaries: 0,
    };
    this.#open = open;
    return open;
  }

  /** A piece of the open part's text (a custom tool's input escaped into its JSON). */
  #delta(kind: OpenKind, itemId: string, text: string, out: IrEvent[]): void {
    if (!text) return;
    const open = this.#ensure(kind, itemId, out);
    open.any = true;
    open.streamed = true;
    const { index } = open;
    if (kind === "text") out.push({ type: "text_delta", index, text });
    else if (kind === "refusal") out.push({ type: "refusal_delta", index, text });
    else if (kind === "reasoning") out.push({ type: "reasoning_delta", index, text });
    else out.push({ type: "arguments_delta", index, json: open.custom ? escapeInput(text) : text });
  }

  /** The whole text a `*.done` event restates: new only when no delta came before it. */
  #fallback(kind: OpenKind, itemId: string, text: string, out: IrEvent[]): void {
    const open = this.#open;
    if (open?.kind === kind && open.streamed) return;
    this.#delta(kind, itemId, text, out);
  }

  #close(out: IrEvent[]): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    if (open.custom) out.push({ type: "arguments_delta", index: open.index, json: '"}' });
    out.push({ type: "part_end", index: open.index });
  }
}
