/**
 * IR events as a responses client's stream (OpenAI `ResponseStreamEvent`), in the grammar
 * the openai SDK's `ResponseStream` validates and Codex CLI reads: `type` in every payload
 * and as the event name, `sequence_number` from 0; `response.created`,
 * `response.in_progress`; per output item `output_item.added` … `.done` (a message item's
 * content parts with `content_part.added`, text deltas, `output_text.done`,
 * `content_part.done`; a reasoning item's summary part and text events; a function call's
 * argument deltas and `.done`; a custom tool call's input, sent once whole because the IR
 * streams it inside JSON text); then `response.completed` (or `response.incomplete`) whose
 * `response` holds every output item and the usage. Text and refusal parts in a row
 * share one message item, as the API's own answers do.
 */
import type { GatewayError } from "../../errors.ts";
import { streamErrorEvents } from "./errors.ts";
import type { SseEvent } from "../../translate/sse.ts";
import { customInput, customToolNames } from "../chat/response_encode.ts";
import type { ResponseEncodeContext, StreamEncoder } from "../../translate/codec.ts";
import type { IrEvent, IrFinish, IrOpaque, IrStreamPart } from "../../translate/ir.ts";
import { callItem, contentPart, itemIdOf, messageItem, reasoningItem } from "./items.ts";
import { responseObject } from "./response_encode.ts";
import type { Usage } from "../../usage.ts";

type Item = Record<string, unknown>;

/**
 * The output item being streamed; `text` gathers its deltas for the `.done` events, and
 * `place` is the JSON text of the fields that place its deltas (item id and indexes).
 */
type Open =
  | { kind: "text"; contentIndex: number; text: string; place: string }
  | { kind: "refusal"; contentIndex: number; text: string; place: string }
  | { kind: "reasoning"; itemId: string; text: string; place: string; opaque?: IrOpaque }
  | {
    kind: "tool_call";
    itemId: string;
    id: string;
    name: string;
    custom: boolean;
    text: string;
    place: string;
  };

/** An encoder for one responses client stream. */
export function createResponsesStreamEncoder(context: ResponseEncodeContext): StreamEncoder {
  return new ResponsesStreamEncoder(context);
}

class ResponsesStreamEncoder implements StreamEncoder {
  readonly #context: ResponseEncodeContext;
  readonly #id: string;
  readonly #custom: Set<string>;
  /** Finished output items, for `response.completed`; the open item's index is its length. */
  readonly #output: Item[] = [];
  #sequence = 0;
  #created = 0;
  #started = false;
  #ended = false;
  #usage: Usage | undefined;
  #finish: IrFinish | undefined;
  /** The message item open across text parts in a row: its id and finished content. */
  #message: { itemId: string; content: Item[] } | undefined;
  #open: Open | undefined;

  constructor(context: ResponseEncodeContext) {
    this.#context = context;
    this.#id = context.newId("resp_");
    this.#custom = customToolNames(context.request);
  }

  encode(event: IrEvent): SseEvent[] {
    if (this.#ended) return [];
    const out: SseEvent[] = [];
    if (event.type === "start") {
      if (event.usage) this.#usage = event.usage;
      this.#start(out, event.created);
    } else if (event.type === "usage") this.#usage = event.usage;
    else if (event.type === "finish") this.#finish ??= event.reason;
    else if (event.type !== "error" && this.#finish === undefined) {
      this.#start(out);
      if (event.type === "part_start") this.#begin(event.part, out);
      else if (event.type === "part_end") this.#close(out);
      else this.#delta(event, out);
    }
    return out;
  }

  end(): SseEvent[] {
    if (this.#ended) return [];
    const out: SseEvent[] = [];
    this.#start(out);
    this.#close(out);
    this.#closeMessage(out);
    this.#ended = true;
    // A stream cut without a finish still ends as the client expects.
    const response = responseObject(this.#context, {
      id: this.#id,
      created: this.#created,
      output: this.#output,
      finish: this.#finish ?? "stop",
      usage: this.#usage,
    });
    const type = response.status === "incomplete" ? "response.incomplete" : "response.completed";
    this.#emit(out, type, { response });
    return out;
  }

  /** The protocol's `error` event, numbered like every event of the stream. */
  error(error: GatewayError): SseEvent[] {
    if (this.#ended) return [];
    this.#ended = true;
    return streamErrorEvents(error, this.#context.requestId).map(
      (event) => {
        const { type, ...rest } = JSON.parse(event.data);
        const data = JSON.stringify({ type, sequence_number: this.#sequence++, ...rest });
        return { ...event, data };
      },
    );
  }

  #emit(out: SseEvent[], type: string, fields: Item): void {
    const data = JSON.stringify({ type, sequence_number: this.#sequence++, ...fields });
    out.push({ event: type, data });
  }

  /** A `*.delta` event, most of a stream: only its text is encoded, the rest is known. */
  #emitDelta(out: SseEvent[], type: string, place: string, delta: string, tail = ""): void {
    const head = `{"type":"${type}","sequence_number":${this.#sequence++},${place}`;
    out.push({ event: type, data: `${head},"delta":${JSON.stringify(delta)}${tail}}` });
  }

  #start(out: SseEvent[], created?: number): void {
    if (this.#started) return;
    this.#started = true;
    this.#created = created ?? Math.floor(this.#context.now() / 1000);
    const response = responseObject(this.#context, {
      id: this.#id,
      created: this.#created,
      output: [],
      finish: undefined,
      usage: undefined,
    });
    this.#emit(out, "response.created", { response });
    this.#emit(out, "response.in_progress", { response });
  }

  /** Where the open item's events point: its id and output index. */
  #at(itemId: string): Item {
    return { item_id: itemId, output_index: this.#output.length };
  }

  /** `fields` as the JSON text of an object's members, to place a delta event. */
  #place(fields: Item): string {
    return JSON.stringify(fields).slice(1, -1);
  }

  #begin(part: IrStreamPart, out: SseEvent[]): void {
    this.#close(out);
    if (part.type === "text" || part.type === "refusal") {
      if (!this.#message) {
        const itemId = this.#context.newId("msg_");
        this.#message = { itemId, content: [] };
        const item = messageItem(itemId, [], "in_progress");
        this.#emit(out, "response.output_item.added", { output_index: this.#output.length, item });
      }
      const contentIndex = this.#message.content.length;
      const at = { ...this.#at(this.#message.itemId), content_index: contentIndex };
      this.#open = { kind: part.type, contentIndex, text: "", place: this.#place(at) };
      this.#emit(out, "response.content_part.added", { ...at, part: contentPart(part.type, "") });
      return;
    }
    this.#closeMessage(out);
    let item: Item;
    if (part.type === "reasoning") {
      const itemId = itemIdOf(part, "rs_", this.#context);
      const place = this.#place({ ...this.#at(itemId), summary_index: 0 });
      this.#open = { kind: "reasoning", itemId, text: "", place };
      item = { id: itemId, type: "reasoning", summary: [] };
    } else {
      const custom = this.#custom.has(part.name);
      const itemId = itemIdOf(part, custom ? "ctc_" : "fc_", this.#context);
      const { id, name } = part;
      const place = this.#place(this.#at(itemId));
      this.#open = { kind: "tool_call", itemId, id, name, custom, text: "", place };
      const call = { type: "tool_call" as const, id: part.id, name: part.name, arguments: "" };
      item = callItem(call, custom, itemId, "in_progress");
    }
    this.#emit(out, "response.output_item.added", { output_index: this.#output.length, item });
  }

  #delta(event: IrEvent, out: SseEvent[]): void {
    const open = this.#open;
    if (!open) return;
    if (event.type === "text_delta" || event.type === "refusal_delta") {
      if (open.kind !== "text" && open.kind !== "refusal" || !event.text || !this.#message) return;
      open.text += event.text;
      if (open.kind === "text") {
        this.#emitDelta(
          out,
          "response.output_text.delta",
          open.place,
          event.text,
          ',"logprobs":[]',
        );
      } else this.#emitDelta(out, "response.refusal.delta", open.place, event.text);
    } else if (event.type === "reasoning_delta" && open.kind === "reasoning" && event.text) {
      if (!open.text) {
        const part = { type: "summary_text", text: "" };
        const fields = { ...this.#at(open.itemId), summary_index: 0 };
        this.#emit(out, "response.reasoning_summary_part.added", { ...fields, part });
      }
      open.text += event.text;
      this.#emitDelta(out, "response.reasoning_summary_text.delta", open.place, event.text);
    } else if (event.type === "reasoning_opaque" && open.kind === "reasoning") {
      open.opaque = event.opaque;
    } else if (event.type === "arguments_delta" && open.kind === "tool_call" && event.json) {
      open.text += event.json;
      if (!open.custom) {
        this.#emitDelta(out, "response.function_call_arguments.delta", open.place, event.json);
      }
    }
  }

  /** Ends the open part: its `.done` events, and the item's unless it is message text. */
  #close(out: SseEvent[]): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    if (open.kind === "text" || open.kind === "refusal") {
      const message = this.#message!;
      const fields = { ...this.#at(message.itemId), content_index: open.contentIndex };
      if (open.kind === "text") {
        this.#emit(out, "response.output_text.done", { ...fields, text: open.text, logprobs: [] });
      } else this.#emit(out, "response.refusal.done", { ...fields, refusal: open.text });
      const part = contentPart(open.kind, open.text);
      this.#emit(out, "response.content_part.done", { ...fields, part });
      message.content.push(part);
      return;
    }
    const at = this.#at(open.itemId);
    let item: Item;
    if (open.kind === "reasoning") {
      if (open.text) {
        const fields = { ...at, summary_index: 0 };
        this.#emit(out, "response.reasoning_summary_text.done", { ...fields, text: open.text });
        const part = { type: "summary_text", text: open.text };
        this.#emit(out, "response.reasoning_summary_part.done", { ...fields, part });
      }
      const reasoning = { type: "reasoning" as const, text: open.text, opaque: open.opaque };
      item = reasoningItem(reasoning, open.itemId);
    } else {
      const call = {
        type: "tool_call" as const,
        id: open.id,
        name: open.name,
        arguments: open.text,
      };
      item = callItem(call, open.custom, open.itemId, "completed");
      if (open.custom) {
        const input = customInput(open.text);
        if (input) {
          this.#emit(out, "response.custom_tool_call_input.delta", { ...at, delta: input });
        }
        this.#emit(out, "response.custom_tool_call_input.done", { ...at, input });
      } else {
        this.#emit(out, "response.function_call_arguments.done", { ...at, arguments: open.text });
      }
    }
    this.#finishItem(out, item);
  }

  #closeMessage(out: SseEvent[]): void {
    const message = this.#message;
    if (!message) return;
    this.#message = undefined;
    this.#finishItem(out, messageItem(message.itemId, message.content));
  }

  #finishItem(out: SseEvent[], item: Item): void {
    this.#emit(out, "response.output_item.done", { output_index: this.#output.length, item });
    this.#output.push(item);
  }
}
