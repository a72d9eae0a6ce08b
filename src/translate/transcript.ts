/**
 * What a client has been sent of a streamed answer, in IR terms: its start, and each part
 * with its text so far. Kept only for a stream a rescue may continue: it says whether the
 * answer can be continued from a prefill (text, not cut inside a tool call or reasoning),
 * with what text, and brings a fresh encoder to where the client's stream stands.
 */

import type { IrEvent, IrOpaque, IrStreamPart } from "./ir.ts";
import type { Usage } from "../usage.ts";

/** One part of the answer as the client has it. */
interface TranscriptPart {
  part: IrStreamPart;
  /** Its text so far: text, refusal or reasoning, or a tool call's argument JSON. */
  text: string;
  opaque?: IrOpaque;
  ended: boolean;
}

/** The IR start event of a stream. */
type Start = Extract<IrEvent, { type: "start" }>;

/** The answer as the client has it, built from the IR events it was sent. */
export class Transcript {
  #start: Start | undefined;
  readonly #parts: TranscriptPart[] = [];
  #usage: Usage | undefined;
  #finished = false;

  /** Takes in one IR event the client was sent (or its equivalent, for a same-protocol relay). */
  observe(event: IrEvent): void {
    switch (event.type) {
      case "start":
        this.#start = event;
        if (event.usage) this.#usage = event.usage;
        return;
      case "part_start":
        this.#parts[event.index] = { part: event.part, text: "", ended: false };
        return;
      case "text_delta":
      case "refusal_delta":
      case "reasoning_delta":
        this.#append(event.index, event.text);
        return;
      case "arguments_delta":
        this.#append(event.index, event.json);
        return;
      case "reasoning_opaque": {
        const part = this.#parts[event.index];
        if (part) part.opaque = event.opaque;
        return;
      }
      case "part_end": {
        const part = this.#parts[event.index];
        if (part) part.ended = true;
        return;
      }
      case "usage":
        this.#usage = event.usage;
        return;
      case "finish":
        this.#finished = true;
        return;
    }
  }

  /** The usage the upstream reported so far. */
  get usage(): Usage | undefined {
    return this.#usage;
  }

  /** How many parts the client has been sent (the next part's index). */
  get partCount(): number {
    return this.#parts.length;
  }

  /** The index of the text part still open, which a continuation's text goes on in. */
  get openText(): number | undefined {
    const last = this.#parts.length - 1;
    const part = this.#parts[last];
    return part && !part.ended && part.part.type === "text" ? last : undefined;
  }

  /**
   * The answer's text, when a prefill can continue it: it has text, its last part is text,
   * and it has no tool call (a cut inside a call's arguments or a reasoning block is not
   * continued, and a call cannot be prefilled); undefined otherwise.
   */
  continuable(): string | undefined {
    const last = this.#parts.at(-1);
    if (this.#finished || last?.part.type !== "text") return undefined;
    if (this.#parts.some((part) => part.part.type === "tool_call")) return undefined;
    const text = this.#parts.filter((part) => part.part.type === "text")
      .map((part) => part.text).join("");
    return text.trim() === "" ? undefined : text;
  }

  /** IR events that bring a fresh encoder to this point (its output is not sent). */
  replay(): IrEvent[] {
    const events: IrEvent[] = [];
    if (this.#start) events.push(this.#start);
    this.#parts.forEach(({ part, text, opaque, ended }, index) => {
      events.push({ type: "part_start", index, part });
      if (text !== "") events.push(deltaOf(part, index, text));
      if (opaque) events.push({ type: "reasoning_opaque", index, opaque });
      if (ended) events.push({ type: "part_end", index });
    });
    return events;
  }

  /**
   * The ids the client was sent, for a fresh encoder to use again in order, by prefix: the
   * answer's id under `idPrefix` and, for responses, its message items under `msg_`.
   */
  ids(idPrefix: string): Map<string, string[]> {
    const ids = new Map<string, string[]>();
    if (this.#start?.id) ids.set(idPrefix, [this.#start.id]);
    const items = this.#parts.flatMap(({ part }) =>
      (part.type === "text" || part.type === "refusal") && part.itemId ? [part.itemId] : []
    );
    // Text parts in a row share one message item: each item once.
    const unique = items.filter((id, index) => id !== items[index - 1]);
    if (unique.length > 0 && idPrefix !== "msg_") ids.set("msg_", unique);
    return ids;
  }

  #append(index: number, text: string): void {
    const part = this.#parts[index];
    if (part) part.text += text;
  }
}

/** The delta event that carries a part's whole text. */
function deltaOf(part: IrStreamPart, index: number, text: string): IrEvent {
  switch (part.type) {
    case "tool_call":
      return { type: "arguments_delta", index, json: text };
    case "reasoning":
      return { type: "reasoning_delta", index, text };
    case "refusal":
      return { type: "refusal_delta", index, text };
    default:
      return { type: "text_delta", index, text };
  }
}
