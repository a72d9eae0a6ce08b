/**
 * What the responses stream decoder keeps of the part it is streaming, the IR events of a
 * part that arrives whole (a server that sends an item only in its `.done` event, or the
 * whole output only in `response.completed`), and the error an event reports.
 */
import { statusOfErrorType } from "../error_status.ts";
import { asRecord, stringOr } from "../json_read.ts";
import { streamError } from "./errors.ts";
import type { SseEvent } from "../../translate/sse.ts";
import type { IrAssistantPart, IrEvent, IrStreamError } from "../../translate/ir.ts";

/** The kinds of IR part a responses stream carries. */
export type OpenKind = "text" | "refusal" | "reasoning" | "tool_call";

/** The part being streamed. */
export interface Open {
  kind: OpenKind;
  index: number;
  /** The upstream item it belongs to (`msg_…`, `rs_…`, `fc_…`), when the server names it. */
  itemId: string;
  /** A custom tool call: its raw input goes out inside the JSON text `{"input": "…"}`. */
  custom: boolean;
  /** Whether any text came for the part (else its `.done` event or item carries it). */
  any: boolean;
  /** Whether text came for the current piece (a reasoning item streams summary parts). */
  streamed: boolean;
  /** Summary parts seen: a reasoning item with summaries ignores its raw reasoning text. */
  summaries: number;
}

/** A custom tool's input as a piece of the JSON string in `{"input": "…"}`. */
export function escapeInput(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** The IR events of a whole part, numbered `index`. */
export function emitPart(part: IrAssistantPart, index: number, out: IrEvent[]): void {
  if (part.type === "tool_call") {
    const { id, name, itemId } = part;
    out.push({
      type: "part_start",
      index,
      part: { type: "tool_call", id, name, ...(itemId ? { itemId } : {}) },
    });
    if (part.arguments) out.push({ type: "arguments_delta", index, json: part.arguments });
  } else if (part.type === "reasoning") {
    const itemId = part.itemId ? { itemId: part.itemId } : {};
    out.push({ type: "part_start", index, part: { type: "reasoning", ...itemId } });
    if (part.text) out.push({ type: "reasoning_delta", index, text: part.text });
    if (part.opaque) out.push({ type: "reasoning_opaque", index, opaque: part.opaque });
  } else {
    out.push({ type: "part_start", index, part: { type: part.type } });
    const type = part.type === "text" ? "text_delta" : "refusal_delta";
    if (part.text) out.push({ type, index, text: part.text });
  }
  out.push({ type: "part_end", index });
}

/** The error an `error` or `response.failed` event reports (also a bare `{error}` payload). */
export function errorOf(event: SseEvent, data: Record<string, unknown>): IrStreamError | undefined {
  const report = streamError(event);
  if (report) return report;
  if (event.event !== "error" && !(data.type === undefined && asRecord(data.error))) {
    return undefined;
  }
  const error = asRecord(data.error) ?? data;
  const type = stringOr(error.code) || stringOr(error.type) || undefined;
  return {
    status: statusOfErrorType(type),
    ...(type ? { type } : {}),
    ...(stringOr(error.message) ? { message: stringOr(error.message) } : {}),
  };
}
