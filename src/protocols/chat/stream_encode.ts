/**
 * IR events as a chat client's chunk stream (OpenAI `ChatCompletionChunk`), in the
 * grammar the openai SDK's `ChatCompletionStream` and the AI SDK's openai-compatible
 * provider parse: every chunk `{id, object, created, model, choices}`; the first delta
 * `{role: "assistant", content: ""}`; a tool call's first delta with `index`, `id`,
 * `type` and `function: {name, arguments: ""}`, later ones `{index, function: {arguments}}`
 * (the AI SDK requires `function` on each); a chunk with `finish_reason`; with
 * `include_usage`, `"usage": null` on every chunk and a last `choices: []` chunk with the
 * usage; then `[DONE]`. Reasoning streams as `reasoning_content`; its opaque state as
 * one `reasoning_details` delta per part (with the part's whole text, which a signature
 * needs beside it when the client sends the history back).
 */
import { encodeUsage } from "./usage.ts";
import type { GatewayError } from "../../errors.ts";
import { streamErrorEvents } from "./errors.ts";
import { asRecord } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { ResponseEncodeContext, StreamEncoder } from "../../translate/codec.ts";
import type { IrEvent, IrReasoning, IrStreamPart } from "../../translate/ir.ts";
import { chatFinishOf } from "./finish.ts";
import { detailsOfReasoning } from "./reasoning_details.ts";
import { customInput, customToolNames } from "./response_encode.ts";
import type { Usage } from "../../usage.ts";

/** The part being sent: what its deltas need (a call's chat index, a reasoning part's text). */
type Open =
  | { kind: "text" | "refusal" }
  | { kind: "reasoning"; ordinal: number; text: string; itemId?: string }
  | { kind: "tool_call"; chatIndex: number; custom: boolean; args: string };

/** An encoder for one chat client stream. */
export function createChatStreamEncoder(context: ResponseEncodeContext): StreamEncoder {
  return new ChatStreamEncoder(context);
}

class ChatStreamEncoder implements StreamEncoder {
  readonly #context: ResponseEncodeContext;
  readonly #id: string;
  readonly #custom: Set<string>;
  /** Whether the client asked for the usage chunk (`stream_options.include_usage`). */
  readonly #includeUsage: boolean;
  #created = 0;
  #started = false;
  #finished = false;
  #ended = false;
  #usage: Usage | undefined;
  #open: Open | undefined;
  #calls = 0;
  #reasonings = 0;
  /** The JSON text around a delta chunk's delta, the same in every one (set by #start). */
  #deltaHead = "";
  #deltaTail = "";

  constructor(context: ResponseEncodeContext) {
    this.#context = context;
    this.#id = context.newId("chatcmpl-");
    this.#custom = customToolNames(context.request);
    this.#includeUsage = asRecord(context.body.stream_options)?.include_usage === true;
  }

  encode(event: IrEvent): SseEvent[] {
    if (this.#ended) return [];
    const out: SseEvent[] = [];
    if (event.type === "start") {
      if (event.usage) this.#usage = event.usage;
      this.#start(out, event.created);
      return out;
    }
    if (event.type === "usage") {
      this.#usage = event.usage;
      return out;
    }
    if (event.type === "error") return out;
    this.#start(out);
    if (event.type === "finish") {
      if (this.#finished) return out;
      this.#finish(out, chatFinishOf(event.reason, this.#calls > 0));
      return out;
    }
    if (this.#finished) return out;
    this.#part(event, out);
    return out;
  }

  end(): SseEvent[] {
    if (this.#ended) return [];
    const out: SseEvent[] = [];
    this.#start(out);
    this.#closeCustom(out);
    // A stream cut without a finish still ends as the client expects.
    if (!this.#finished) this.#finish(out, chatFinishOf("stop", this.#calls > 0));
    if (this.#includeUsage && this.#usage) {
      out.push(this.#chunk([], encodeUsage(this.#usage)));
    }
    out.push({ data: "[DONE]" });
    this.#ended = true;
    return out;
  }

  error(error: GatewayError): SseEvent[] {
    if (this.#ended) return [];
    this.#ended = true;
    return streamErrorEvents(error, this.#context.requestId);
  }

  #part(
    event: Exclude<IrEvent, { type: "start" | "usage" | "error" | "finish" }>,
    out: SseEvent[],
  ) {
    const open = this.#open;
    switch (event.type) {
      case "part_start":
        this.#closeCustom(out);
        this.#begin(event.part, out);
        return;
      case "text_delta":
        if (event.text) out.push(this.#textDelta("content", event.text));
        return;
      case "refusal_delta":
        if (event.text) out.push(this.#textDelta("refusal", event.text));
        return;
      case "reasoning_delta":
        if (open?.kind === "reasoning") open.text += event.text;
        if (event.text) out.push(this.#textDelta("reasoning_content", event.text));
        return;
      case "reasoning_opaque": {
        const reasoning = open?.kind === "reasoning" ? open : undefined;
        const ordinal = reasoning?.ordinal ?? this.#reasonings++;
        const part: IrReasoning = {
          type: "reasoning",
          text: reasoning?.text ?? "",
          opaque: event.opaque,
          ...(reasoning?.itemId ? { itemId: reasoning.itemId } : {}),
        };
        out.push(this.#delta({ reasoning_details: detailsOfReasoning(part, ordinal) }));
        return;
      }
      case "arguments_delta":
        if (open?.kind !== "tool_call") return;
        if (open.custom) open.args += event.json;
        else if (event.json) {
          const call = `{"index":${open.chatIndex},"function":{"arguments":`;
          out.push(this.#deltaChunk(`{"tool_calls":[${call}${JSON.stringify(event.json)}}}]}`));
        }
        return;
      case "part_end":
        this.#closeCustom(out);
        this.#open = undefined;
        return;
    }
  }

  #begin(part: IrStreamPart, out: SseEvent[]) {
    if (part.type === "text" || part.type === "refusal") {
      this.#open = { kind: part.type };
    } else if (part.type === "reasoning") {
      const ordinal = this.#reasonings++;
      this.#open = { kind: "reasoning", ordinal, text: "", itemId: part.itemId };
    } else {
      const chatIndex = this.#calls++;
      const custom = this.#custom.has(part.name);
      this.#open = { kind: "tool_call", chatIndex, custom, args: "" };
      const call = custom
        ? { index: chatIndex, id: part.id, type: "custom", custom: { name: part.name, input: "" } }
        : {
          index: chatIndex,
          id: part.id,
          type: "function",
          function: { name: part.name, arguments: "" },
        };
      out.push(this.#delta({ tool_calls: [call] }));
    }
  }

  // A custom tool's input is JSON text in the IR; it goes out decoded, once complete.
  #closeCustom(out: SseEvent[]): void {
    const open = this.#open;
    if (open?.kind !== "tool_call" || !open.custom) return;
    this.#open = undefined;
    const input = customInput(open.args);
    if (input) {
      out.push(this.#delta({ tool_calls: [{ index: open.chatIndex, custom: { input } }] }));
    }
  }

  #start(out: SseEvent[], created?: number): void {
    if (this.#started) return;
    this.#started = true;
    this.#created = created ?? Math.floor(this.#context.now() / 1000);
    // Delta chunks are most of a stream and differ only in their delta: the rest is written once.
    const head = JSON.stringify(this.#chunkHead());
    this.#deltaHead = `${head.slice(0, -1)},"choices":[{"index":0,"delta":`;
    const usage = this.#includeUsage ? ',"usage":null' : "";
    this.#deltaTail = `,"logprobs":null,"finish_reason":null}]${usage}}`;
    out.push(this.#delta({ role: "assistant", content: "", refusal: null }));
  }

  #finish(out: SseEvent[], reason: string): void {
    this.#closeCustom(out);
    this.#finished = true;
    out.push(this.#chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: reason }]));
  }

  #delta(delta: Record<string, unknown>): SseEvent {
    return this.#deltaChunk(JSON.stringify(delta));
  }

  /** A delta of one string field: only the string is encoded. */
  #textDelta(field: "content" | "refusal" | "reasoning_content", text: string): SseEvent {
    return this.#deltaChunk(`{"${field}":${JSON.stringify(text)}}`);
  }

  /** The chunk of one choice whose delta is the JSON text `delta`, as #chunk would write it. */
  #deltaChunk(delta: string): SseEvent {
    return { data: this.#deltaHead + delta + this.#deltaTail };
  }

  /** The fields every chunk starts with. */
  #chunkHead(): Record<string, unknown> {
    return {
      id: this.#id,
      object: "chat.completion.chunk",
      created: this.#created,
      model: this.#context.model,
    };
  }

  #chunk(choices: unknown[], usage?: Record<string, unknown>): SseEvent {
    const chunk: Record<string, unknown> = { ...this.#chunkHead(), choices };
    // With include_usage the API puts `usage: null` on every chunk but the last.
    if (this.#includeUsage) chunk.usage = usage ?? null;
    return { data: JSON.stringify(chunk) };
  }
}
