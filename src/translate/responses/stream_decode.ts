/**
 * A responses upstream stream (OpenAI "Streaming events") as IR events: message content
 * parts, reasoning items and tool calls become parts in order; the terminal event
 * (`response.completed` / `.incomplete`) gives the usage and the finish; `error` and
 * `response.failed` end it. Events it does not need are ignored.
 */
import { fields, parseEventData, stringOr } from "../../protocols/json_read.ts";
import { streamError } from "../../protocols/responses/errors.ts";
import { usageFromResponse } from "../../protocols/responses/usage.ts";
import type { SseEvent } from "../../protocols/sse.ts";
import type { StreamDecoder } from "../codec.ts";
import type { IrEvent } from "../ir.ts";
import { finishOf, reasoningOfItem } from "./response.ts";

interface Open {
  index: number;
  kind: "text" | "refusal" | "reasoning" | "tool_call";
  /** The upstream item it belongs to. */
  itemId: string;
  /** Whether any delta arrived (else the `.done` event carries the content). */
  streamed: boolean;
  /** A custom tool call: its raw input goes out as the JSON text `{"input": "…"}`. */
  custom: boolean;
  summaries: number;
}

/** A decoder for one responses upstream stream. */
export function createResponsesStreamDecoder(): StreamDecoder {
  let started = false;
  let failed = false;
  let next = 0;
  let open: Open | undefined;
  let calledTools = false;

  const close = (out: IrEvent[]) => {
    if (!open) return;
    if (open.custom) out.push({ type: "arguments_delta", index: open.index, json: '"}' });
    out.push({ type: "part_end", index: open.index });
    open = undefined;
  };
  const begin = (
    kind: Open["kind"],
    itemId: string,
    out: IrEvent[],
    part: IrEvent & { type: "part_start" },
  ) => {
    close(out);
    open = { index: part.index, kind, itemId, streamed: false, custom: false, summaries: 0 };
    next++;
    out.push(part);
    return open;
  };

  const itemAdded = (item: Record<string, unknown>, out: IrEvent[]) => {
    const itemId = stringOr(item.id);
    if (item.type === "reasoning") {
      begin("reasoning", itemId, out, {
        type: "part_start",
        index: next,
        part: { type: "reasoning", itemId },
      });
    } else if (item.type === "function_call" || item.type === "custom_tool_call") {
      calledTools = true;
      const part = {
        type: "tool_call" as const,
        id: stringOr(item.call_id),
        name: stringOr(item.name),
        itemId,
      };
      const opened = begin("tool_call", itemId, out, { type: "part_start", index: next, part });
      if (item.type === "custom_tool_call") {
        opened.custom = true;
        out.push({ type: "arguments_delta", index: opened.index, json: '{"input":"' });
      }
    }
  };

  const itemDone = (item: Record<string, unknown>, out: IrEvent[]) => {
    if (!open || open.itemId !== stringOr(item.id)) return;
    const { index } = open;
    if (open.kind === "reasoning") {
      const reasoning = reasoningOfItem(item);
      if (!open.streamed && reasoning.text) {
        out.push({ type: "reasoning_delta", index, text: reasoning.text });
      }
      if (reasoning.opaque) out.push({ type: "reasoning_opaque", index, opaque: reasoning.opaque });
    } else if (open.kind === "tool_call" && !open.streamed) {
      const json = open.custom
        ? JSON.stringify(stringOr(item.input)).slice(1, -1)
        : stringOr(item.arguments);
      if (json) out.push({ type: "arguments_delta", index, json });
    }
    close(out);
  };

  const delta = (kind: Open["kind"], text: string, out: IrEvent[]) => {
    if (!open || open.kind !== kind || !text) return;
    open.streamed = true;
    const { index } = open;
    if (kind === "text") out.push({ type: "text_delta", index, text });
    else if (kind === "refusal") out.push({ type: "refusal_delta", index, text });
    else if (kind === "reasoning") out.push({ type: "reasoning_delta", index, text });
    else {out.push({
        type: "arguments_delta",
        index,
        json: open.custom ? JSON.stringify(text).slice(1, -1) : text,
      });}
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
        const usage = usageFromResponse(data.response);
        if (usage) out.push({ type: "usage", usage });
        out.push({ type: "error", error: report });
        return out;
      }
      const type = stringOr(data.type);
      if (!started && (type === "response.created" || type === "response.in_progress")) {
        started = true;
        const response = fields(data.response);
        const start: IrEvent = {
          type: "start",
          id: stringOr(response.id),
          model: stringOr(response.model),
        };
        if (typeof response.created_at === "number") start.created = response.created_at;
        out.push(start);
        return out;
      }
      switch (type) {
        case "response.output_item.added":
          itemAdded(fields(data.item), out);
          break;
        case "response.output_item.done":
          itemDone(fields(data.item), out);
          break;
        case "response.content_part.added": {
          const part = fields(data.part);
          const kind = part.type === "refusal" ? "refusal" : "text";
          begin(kind, stringOr(data.item_id), out, {
            type: "part_start",
            index: next,
            part: { type: kind },
          });
          break;
        }
        case "response.content_part.done":
          if (open && !open.streamed) {
            const part = fields(data.part);
            delta(open.kind, stringOr(part.text) || stringOr(part.refusal), out);
          }
          if (open?.kind === "text" || open?.kind === "refusal") close(out);
          break;
        case "response.output_text.delta":
          delta("text", stringOr(data.delta), out);
          break;
        case "response.refusal.delta":
          delta("refusal", stringOr(data.delta), out);
          break;
        case "response.reasoning_summary_part.added":
          if (open?.kind === "reasoning" && open.summaries++ > 0) delta("reasoning", "\n\n", out);
          break;
        case "response.reasoning_summary_text.delta":
        case "response.reasoning_text.delta":
          delta("reasoning", stringOr(data.delta), out);
          break;
        case "response.function_call_arguments.delta":
        case "response.custom_tool_call_input.delta":
          delta("tool_call", stringOr(data.delta), out);
          break;
        case "response.completed":
        case "response.incomplete": {
          close(out);
          const response = fields(data.response);
          const usage = usageFromResponse(response);
          if (usage) out.push({ type: "usage", usage });
          out.push({ type: "finish", reason: finishOf(response, calledTools) });
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
