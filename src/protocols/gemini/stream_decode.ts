/**
 * A Gemini upstream stream (`streamGenerateContent?alt=sse`: each `data:` line a
 * `GenerateContentResponse` holding only the new parts) as IR events. Parts have no
 * boundaries of their own: a text or thought part runs on while chunks bring more of its
 * kind, and ends when another kind comes, at `finishReason`, or when the stream ends. A
 * `functionCall` comes whole, so it is a part of its own, its arguments one delta. Each
 * chunk's `usageMetadata` holds the counts so far (usage.ts); a chunk carrying `error`
 * (errors.ts) is the IR error, after which nothing. A `thoughtSignature` is the opaque
 * state (`gemini_signature`) of the thoughts before its part, or of an empty reasoning part
 * when none were sent (response_decode.ts has the part table).
 */
import type { StreamDecoder } from "../../translate/codec.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { asRecord, fields, listOf, parseEventData, stringOr } from "../json_read.ts";
import type { SseEvent } from "../../translate/sse.ts";
import { argumentsOf } from "./content.ts";
import { streamError } from "./errors.ts";
import { finishOfReason } from "./finish.ts";
import { opaqueOfSignature } from "./content.ts";
import { callId } from "./response_decode.ts";
import { readUsageMetadata } from "./usage.ts";

/** A decoder for one Gemini upstream stream. */
export function createGeminiStreamDecoder(): StreamDecoder {
  return new GeminiStreamDecoder();
}

class GeminiStreamDecoder implements StreamDecoder {
  #started = false;
  #finished = false;
  #failed = false;
  #next = 0;
  #calls = 0;
  #responseId = "";
  /** The text or thought part being streamed. */
  #open: { kind: "text" | "reasoning"; index: number } | undefined;

  decode(event: SseEvent): IrEvent[] {
    if (this.#failed) return [];
    const out: IrEvent[] = [];
    const chunk = parseEventData(event.data);
    if (!chunk) return out;
    if (chunk.error != null) {
      this.#failed = true;
      out.push({ type: "error", error: streamError(event) ?? { status: 500 } });
      return out;
    }
    if (!this.#started) {
      this.#started = true;
      this.#responseId = stringOr(chunk.responseId);
      const start: IrEvent = {
        type: "start",
        id: this.#responseId,
        model: stringOr(chunk.modelVersion),
      };
      const created = Date.parse(stringOr(chunk.createTime));
      if (Number.isFinite(created)) start.created = Math.floor(created / 1000);
      out.push(start);
    }
    const candidate = fields(listOf(chunk.candidates)[0]);
    if (!this.#finished) {
      for (const part of listOf(fields(candidate.content).parts)) this.#part(fields(part), out);
    }
    const usage = readUsageMetadata(chunk.usageMetadata);
    if (usage) out.push({ type: "usage", usage });
    const blocked = listOf(chunk.candidates).length === 0 &&
      asRecord(chunk.promptFeedback)?.blockReason;
    if ((candidate.finishReason != null || blocked) && !this.#finished) {
      this.#close(out);
      this.#finished = true;
      const reason = blocked
        ? "content_filter"
        : finishOfReason(candidate.finishReason, this.#calls > 0);
      out.push({ type: "finish", reason });
    }
    return out;
  }

  end(): IrEvent[] {
    if (this.#failed) return [];
    const out: IrEvent[] = [];
    this.#close(out);
    return out;
  }

  #part(part: Record<string, unknown>, out: IrEvent[]): void {
    if (part.thought === true) {
      this.#content(part, out);
      this.#sign(part.thoughtSignature, out);
      return;
    }
    this.#sign(part.thoughtSignature, out);
    this.#content(part, out);
  }

  /** A signature on the open reasoning part, or on an empty one of its own. */
  #sign(signature: unknown, out: IrEvent[]): void {
    if (typeof signature !== "string" || !signature) return;
    const opaque = opaqueOfSignature(signature);
    if (this.#open?.kind === "reasoning") {
      out.push({ type: "reasoning_opaque", index: this.#open.index, opaque });
      return;
    }
    this.#close(out);
    const index = this.#next++;
    out.push({ type: "part_start", index, part: { type: "reasoning" } });
    out.push({ type: "reasoning_opaque", index, opaque });
    out.push({ type: "part_end", index });
  }

  #content(part: Record<string, unknown>, out: IrEvent[]): void {
    const call = asRecord(part.functionCall);
    if (call) {
      this.#close(out);
      const index = this.#next++;
      const id = callId(call, this.#responseId, this.#calls++);
      out.push({
        type: "part_start",
        index,
        part: { type: "tool_call", id, name: stringOr(call.name) },
      });
      out.push({ type: "arguments_delta", index, json: argumentsOf(call.args) });
      out.push({ type: "part_end", index });
      return;
    }
    const text = stringOr(part.text);
    if (!text) return;
    const kind = part.thought === true ? "reasoning" : "text";
    let open = this.#open;
    if (open?.kind !== kind) {
      this.#close(out);
      open = { kind, index: this.#next++ };
      this.#open = open;
      out.push({ type: "part_start", index: open.index, part: { type: kind } });
    }
    out.push({ type: kind === "text" ? "text_delta" : "reasoning_delta", index: open.index, text });
  }

  #close(out: IrEvent[]): void {
    if (!this.#open) return;
    out.push({ type: "part_end", index: this.#open.index });
    this.#open = undefined;
  }
}
