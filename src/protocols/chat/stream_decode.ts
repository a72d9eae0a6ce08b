/**
 * A chat-completions upstream stream (OpenAI `ChatCompletionChunk`s) as IR events.
 * Chat has no part boundaries: a part ends when another begins, at `finish_reason`, or
 * when the stream ends. Tolerates what real servers send: `"usage": null` on every
 * chunk, a usage-only chunk (`choices: []`), `obfuscation`, empty deltas, usage on the
 * finish chunk (DeepSeek), tool calls without `index` (Gemini) or whose name comes late,
 * reasoning as `reasoning_content` / `reasoning` / `reasoning_details`, error chunks,
 * Azure's leading `prompt_filter_results` chunk.
 */
import { streamError } from "./errors.ts";
import { usageFromResponse } from "./usage.ts";
import { asRecord, fields, listOf, parseEventData, stringOr } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { StreamDecoder } from "../../translate/codec.ts";
import type { IrEvent, IrStreamError } from "../../translate/ir.ts";
import { finishOfChat } from "./finish.ts";
import { readDetail } from "./reasoning_details.ts";
import { thinkingText } from "./response_decode.ts";
import { textOfChunk } from "./text_chunk.ts";

/** The part being streamed; a tool call gets its IR index once its name is known. */
type Open =
  | { kind: "text" | "refusal"; index: number }
  | {
    kind: "reasoning";
    index: number;
    detailIndex?: number;
    hasOpaque: boolean;
    /** Where its text came from so far: plain `reasoning_content`/`reasoning`, or details. */
    plain: boolean;
    detailed: boolean;
  }
  | {
    kind: "tool_call";
    index?: number;
    chatIndex?: number;
    id: string;
    buffered: string;
    /** A custom tool's raw input, streamed as the JSON text `{"input": "…"}`. */
    custom: boolean;
  };

/** A decoder for one chat-completions upstream stream. */
export function createChatStreamDecoder(): StreamDecoder {
  return new ChatStreamDecoder();
}

class ChatStreamDecoder implements StreamDecoder {
  #started = false;
  #finished = false;
  #failed = false;
  #next = 0;
  #open: Open | undefined;
  #calledTools = false;
  /** Chat indexes of calls already ended: a late delta for one cannot reopen it. */
  #endedCalls = new Set<number>();
  #chunkId = "";

  decode(event: SseEvent): IrEvent[] {
    if (this.#failed || event.data === "[DONE]") return [];
    const out: IrEvent[] = [];
    // A text chunk once started (the usual one) needs no parse: only its text is read.
    // While a tool call is open its argument chunks come instead: they go to the parse.
    const text = this.#started && this.#open?.kind !== "tool_call"
      ? textOfChunk(event.data)
      : undefined;
    if (text !== undefined) {
      if (!this.#finished) this.#text("text", text, out);
      return out;
    }
    const chunk = parseEventData(event.data);
    if (!chunk) return out;
    if (chunk.error != null) return this.#fail(chunk, event, out);
    const choices = listOf(chunk.choices).map(fields);
    // Azure opens with an id-less `prompt_filter_results` chunk: not yet the answer.
    if (!this.#started && !stringOr(chunk.id) && choices.length === 0) return out;
    if (!this.#started) {
      this.#started = true;
      this.#chunkId = stringOr(chunk.id);
      const start: IrEvent = { type: "start", id: this.#chunkId, model: stringOr(chunk.model) };
      if (typeof chunk.created === "number") start.created = chunk.created;
      out.push(start);
    }
    const choice = choices.find((c) => c.index === 0 || c.index === undefined);
    if (choice && !this.#finished) this.#choice(choice, out);
    this.#usage(chunk, out);
    return out;
  }

  end(): IrEvent[] {
    if (this.#failed) return [];
    const out: IrEvent[] = [];
    this.#close(out);
    return out;
  }

  // Usage the chunk reports goes out before the error, so what was produced is billed.
  #fail(chunk: Record<string, unknown>, event: SseEvent, out: IrEvent[]): IrEvent[] {
    this.#failed = true;
    this.#usage(chunk, out);
    const report = streamError(event) ?? { status: 500 };
    // OpenRouter puts the HTTP status in `error.code` as a number.
    const code = fields(chunk.error).code;
    const status = typeof code === "number" && code >= 400 && code < 600 ? code : report.status;
    const error: IrStreamError = { status };
    if (report.type) error.type = report.type;
    if (report.message) error.message = report.message;
    out.push({ type: "error", error });
    return out;
  }

  #usage(chunk: Record<string, unknown>, out: IrEvent[]): void {
    if (chunk.usage == null) return;
    const usage = usageFromResponse(chunk);
    if (usage) out.push({ type: "usage", usage });
  }

  #choice(choice: Record<string, unknown>, out: IrEvent[]): void {
    const delta = fields(choice.delta);
    this.#reasoning(delta, out);
    const { content } = delta;
    if (typeof content === "string") this.#text("text", content, out);
    else {
      for (const value of listOf(content)) {
        const part = fields(value);
        if (part.type === "text") this.#text("text", stringOr(part.text), out);
        else if (part.type === "thinking") this.#reasoningText(thinkingText(part.thinking), out);
      }
    }
    this.#text("refusal", stringOr(delta.refusal), out);
    for (const call of listOf(delta.tool_calls)) this.#toolCall(fields(call), out);
    const legacy = asRecord(delta.function_call);
    if (legacy) this.#toolCall({ index: 0, function: legacy }, out);
    const reason = choice.finish_reason;
    if (typeof reason !== "string" || !reason) return;
    this.#close(out);
    this.#finished = true;
    if (reason === "error") {
      // OpenRouter ends a failed generation this way, sometimes with no `error` object.
      this.#failed = true;
      out.push({ type: "error", error: { status: 502, message: "the generation failed" } });
      return;
    }
    const finish: IrEvent = { type: "finish", reason: finishOfChat(reason, this.#calledTools) };
    if (typeof choice.stop_reason === "string") finish.stopSequence = choice.stop_reason;
    out.push(finish);
  }

  /** Reasoning text and opaque state; `reasoning_details` wins over the plain-text copies. */
  #reasoning(delta: Record<string, unknown>, out: IrEvent[]): void {
    const details = listOf(delta.reasoning_details).map(readDetail);
    const plain = stringOr(delta.reasoning_content) || stringOr(delta.reasoning);
    if (plain && !details.some((detail) => detail.text)) {
      this.#reasoningText(plain, out, details[0]?.index);
    }
    for (const detail of details) {
      if (!detail.text && !detail.opaque) continue;
      let open = this.#open;
      const other = open?.kind === "reasoning" &&
        ((detail.index !== undefined && open.detailIndex !== undefined &&
          detail.index !== open.detailIndex) || (detail.opaque !== undefined && open.hasOpaque));
      if (other) this.#close(out);
      open = this.#ensureReasoning(out, detail.index, detail.itemId);
      // A signed entry whose text was already streamed as plain text restates it whole
      // (as tollgate's own chat encoder sends it): its text is not new.
      const restated = detail.opaque !== undefined && open.plain && !open.detailed;
      if (detail.text && !restated) {
        out.push({ type: "reasoning_delta", index: open.index, text: detail.text });
        open.detailed = true;
      }
      if (detail.opaque) {
        out.push({ type: "reasoning_opaque", index: open.index, opaque: detail.opaque });
        open.hasOpaque = true;
      }
    }
  }

  #reasoningText(text: string, out: IrEvent[], detailIndex?: number): void {
    if (!text) return;
    const open = this.#ensureReasoning(out, detailIndex);
    open.plain = true;
    out.push({ type: "reasoning_delta", index: open.index, text });
  }

  #ensureReasoning(out: IrEvent[], detailIndex?: number, itemId?: string) {
    const open = this.#open;
    if (open?.kind === "reasoning") {
      open.detailIndex ??= detailIndex;
      return open;
    }
    this.#close(out);
    const index = this.#next++;
    out.push({
      type: "part_start",
      index,
      part: { type: "reasoning", ...(itemId ? { itemId } : {}) },
    });
    const opened = {
      kind: "reasoning" as const,
      index,
      detailIndex,
      hasOpaque: false,
      plain: false,
      detailed: false,
    };
    this.#open = opened;
    return opened;
  }

  #text(kind: "text" | "refusal", text: string, out: IrEvent[]): void {
    if (!text) return;
    let open = this.#open;
    if (open?.kind !== kind) {
      this.#close(out);
      open = { kind, index: this.#next++ };
      out.push({ type: "part_start", index: open.index, part: { type: kind } });
      this.#open = open;
    }
    const type = kind === "text" ? "text_delta" : "refusal_delta";
    out.push({ type, index: open.index, text });
  }

  /**
   * One tool-call delta. A new `index` (or, without one, a new `id`) starts a call; the
   * rest are argument pieces. The call's part starts once its name is known.
   */
  #toolCall(call: Record<string, unknown>, out: IrEvent[]): void {
    const chatIndex = typeof call.index === "number" ? call.index : undefined;
    const id = stringOr(call.id);
    const custom = asRecord(call.custom);
    const fn = fields(call.function);
    const name = stringOr(fn.name) || stringOr(custom?.name);
    const piece = custom
      ? JSON.stringify(stringOr(custom.input)).slice(1, -1)
      : stringOr(fn.arguments);
    let open = this.#open?.kind === "tool_call" ? this.#open : undefined;
    const same = open !== undefined &&
      (chatIndex === undefined ? !id || id === open.id : chatIndex === open.chatIndex) &&
      (!id || id === open.id || open.index === undefined);
    if (!same) {
      if (chatIndex !== undefined && this.#endedCalls.has(chatIndex) && !id) return;
      this.#close(out);
      const fallback = `call_${this.#chunkId}_${chatIndex ?? this.#next}`;
      open = { kind: "tool_call", chatIndex, id: id || fallback, buffered: "", custom: !!custom };
      this.#open = open;
      this.#calledTools = true;
    }
    if (!open) return;
    if (id && open.index === undefined) open.id = id;
    if (open.index === undefined) {
      open.buffered += piece;
      if (name) this.#startCall(open, name, out);
    } else if (piece) out.push({ type: "arguments_delta", index: open.index, json: piece });
  }

  #startCall(open: Extract<Open, { kind: "tool_call" }>, name: string, out: IrEvent[]): void {
    const index = this.#next++;
    open.index = index;
    out.push({ type: "part_start", index, part: { type: "tool_call", id: open.id, name } });
    const json = (open.custom ? '{"input":"' : "") + open.buffered;
    if (json) out.push({ type: "arguments_delta", index, json });
  }

  /** Ends the open part; a call whose name never came is announced nameless first. */
  #close(out: IrEvent[]): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    if (open.kind === "tool_call") {
      if (open.index === undefined) this.#startCall(open, "", out);
      if (open.custom) out.push({ type: "arguments_delta", index: open.index!, json: '"}' });
      if (open.chatIndex !== undefined) this.#endedCalls.add(open.chatIndex);
    }
    out.push({ type: "part_end", index: open.index! });
  }
}
