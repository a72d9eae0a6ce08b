/**
 * IR events as a responses client's stream, in the grammar the openai SDK's
 * `ResponseStream` and Codex CLI parse: `type` in every payload and as the event name,
 * `sequence_number` from 0; `response.created`, `response.in_progress`; per part an
 * output item added ... done (message content parts with text deltas, reasoning summary
 * parts, function-call argument deltas, custom tool input); then `response.completed`
 * (or `response.incomplete`) whose `response` holds every output item and the usage.
 */
import type { GatewayError } from "../../errors.ts";
import { protocolOf } from "../../protocols/index.ts";
import type { SseEvent } from "../../protocols/sse.ts";
import type { Usage } from "../../protocols/types.ts";
import { customInput, customToolNames } from "../chat/response_encode.ts";
import type { ResponseEncodeContext, StreamEncoder } from "../codec.ts";
import type { IrEvent, IrFinish, IrOpaque, IrStreamPart } from "../ir.ts";
import { callItem, contentPart, messageItem, reasoningItem, responseObject } from "./response.ts";

type Item = Record<string, unknown>;

interface Open {
  part: IrStreamPart;
  outputIndex: number;
  itemId: string;
  text: string;
  opaque?: IrOpaque;
}

/** An encoder for one responses client stream. */
export function createResponsesStreamEncoder(context: ResponseEncodeContext): StreamEncoder {
  const custom = customToolNames(context.request);
  const id = context.newId("resp_");
  const done: Item[] = [];
  let created = 0;
  let sequence = 0;
  let started = false;
  let ended = false;
  let usage: Usage | undefined;
  let finish: IrFinish | undefined;
  let open: Open | undefined;

  const emit = (out: SseEvent[], type: string, fields: Item) =>
    out.push({
      event: type,
      data: JSON.stringify({ type, sequence_number: sequence++, ...fields }),
    });
  const start = (out: SseEvent[], at?: number) => {
    if (started) return;
    started = true;
    created = at ?? Math.floor(context.now() / 1000);
    const response = responseObject(context, id, created, [], undefined, undefined);
    emit(out, "response.created", { response });
    emit(out, "response.in_progress", { response });
  };

  const begin = (part: IrStreamPart, out: SseEvent[]) => {
    close(out);
    const outputIndex = done.length;
    if (part.type === "text" || part.type === "refusal") {
      const itemId = context.newId("msg_");
      open = { part, outputIndex, itemId, text: "" };
      emit(out, "response.output_item.added", {
        output_index: outputIndex,
        item: { ...messageItem(itemId, []), status: "in_progress" },
      });
      emit(out, "response.content_part.added", {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        part: contentPart(part.type, ""),
      });
    } else if (part.type === "reasoning") {
      const itemId = part.itemId ?? context.newId("rs_");
      open = { part, outputIndex, itemId, text: "" };
      emit(out, "response.output_item.added", {
        output_index: outputIndex,
        item: { id: itemId, type: "reasoning", summary: [] },
      });
    } else {
      const call = { type: "tool_call" as const, id: part.id, name: part.name, arguments: "" };
      const item = callItem(call, custom, context);
      open = { part, outputIndex, itemId: String(item.id), text: "" };
      emit(out, "response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress" },
      });
    }
  };

  const where = (o: Open) => ({ item_id: o.itemId, output_index: o.outputIndex });

  const close = (out: SseEvent[]) => {
    const o = open;
    if (!o) return;
    open = undefined;
    let item: Item;
    if (o.part.type === "text" || o.part.type === "refusal") {
      const part = contentPart(o.part.type, o.text);
      const doneEvent = o.part.type === "text"
        ? "response.output_text.done"
        : "response.refusal.done";
      const body = o.part.type === "text" ? { text: o.text, logprobs: [] } : { refusal: o.text };
      emit(out, doneEvent, { ...where(o), content_index: 0, ...body });
      emit(out, "response.content_part.done", { ...where(o), content_index: 0, part });
      item = messageItem(o.itemId, [part]);
    } else if (o.part.type === "reasoning") {
      const reasoning = {
        type: "reasoning" as const,
        text: o.text,
        itemId: o.itemId,
        opaque: o.opaque,
      };
      if (o.text) {
        const summary = { ...where(o), summary_index: 0 };
        emit(out, "response.reasoning_summary_text.done", { ...summary, text: o.text });
        emit(out, "response.reasoning_summary_part.done", {
          ...summary,
          part: { type: "summary_text", text: o.text },
        });
      }
      item = reasoningItem(reasoning, context);
    } else {
      const call = {
        type: "tool_call" as const,
        id: o.part.id,
        name: o.part.name,
        arguments: o.text,
      };
      item = { ...callItem(call, custom, context), id: o.itemId };
      if (item.type === "custom_tool_call") {
        const input = customInput(o.text);
        if (input) {
          emit(out, "response.custom_tool_call_input.delta", { ...where(o), delta: input });
        }
        emit(out, "response.custom_tool_call_input.done", { ...where(o), input });
      } else {
        emit(out, "response.function_call_arguments.done", {
          ...where(o),
          name: o.part.name,
          arguments: o.text,
        });
      }
    }
    emit(out, "response.output_item.done", { output_index: o.outputIndex, item });
    done.push(item);
  };

  const delta = (ir: IrEvent, out: SseEvent[]) => {
    const o = open;
    if (!o) return;
    if ((ir.type === "text_delta" || ir.type === "refusal_delta") && ir.text) {
      o.text += ir.text;
      const type = o.part.type === "refusal"
        ? "response.refusal.delta"
        : "response.output_text.delta";
      emit(out, type, { ...where(o), content_index: 0, delta: ir.text, logprobs: [] });
    } else if (ir.type === "reasoning_delta" && ir.text && o.part.type === "reasoning") {
      if (!o.text) {
        emit(out, "response.reasoning_summary_part.added", {
          ...where(o),
          summary_index: 0,
          part: { type: "summary_text", text: "" },
        });
      }
      o.text += ir.text;
      emit(out, "response.reasoning_summary_text.delta", {
        ...where(o),
        summary_index: 0,
        delta: ir.text,
      });
    } else if (ir.type === "reasoning_opaque") o.opaque = ir.opaque;
    else if (ir.type === "arguments_delta" && ir.json && o.part.type === "tool_call") {
      o.text += ir.json;
      if (!custom.has(o.part.name)) {
        emit(out, "response.function_call_arguments.delta", { ...where(o), delta: ir.json });
      }
    }
  };

  return {
    encode(ir: IrEvent): SseEvent[] {
      if (ended) return [];
      const out: SseEvent[] = [];
      if (ir.type === "start") {
        if (ir.usage) usage = ir.usage;
        start(out, ir.created);
      } else if (ir.type === "usage") usage = ir.usage;
      else if (ir.type === "finish") finish = ir.reason;
      else if (ir.type !== "error") {
        start(out);
        if (ir.type === "part_start") begin(ir.part, out);
        else if (ir.type === "part_end") close(out);
        else delta(ir, out);
      }
      return out;
    },
    end(): SseEvent[] {
      if (ended) return [];
      ended = true;
      const out: SseEvent[] = [];
      start(out);
      close(out);
      const response = responseObject(context, id, created, done, finish ?? "stop", usage);
      const type = response.status === "incomplete" ? "response.incomplete" : "response.completed";
      emit(out, type, { response });
      return out;
    },
    error(error: GatewayError): SseEvent[] {
      if (ended) return [];
      ended = true;
      return protocolOf("responses").streamErrorEvents(error, context.requestId);
    },
  };
}
