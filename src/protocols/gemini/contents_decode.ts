/**
 * A Gemini client's `systemInstruction` and `contents` (Gemini API reference, `Content`,
 * `Part`) as the IR's system prompt and turns.
 *
 * | Gemini                                         | IR                                        |
 * |------------------------------------------------|-------------------------------------------|
 * | `systemInstruction.parts` (any `role`)         | system                                    |
 * | content `role` `user` (or none, or legacy `function`) | user turn                          |
 * | content `role` `model`                         | assistant turn                            |
 * | consecutive contents of one role               | one turn (the SDK's chat keeps a streamed answer as one content per chunk) |
 * | `text`                                         | text (adjacent ones joined)               |
 * | `text` with `thought: true`                    | reasoning (adjacent ones joined)          |
 * | `inlineData`, `fileData`                       | image or document (content.ts)            |
 * | `functionCall` (`id`, else `call_<content>_<part>`) | tool_call                            |
 * | `functionResponse` (its call's `id`, else the earliest unanswered call of its name) | tool_result |
 * | `thoughtSignature` wrapped by tollgate         | the opaque state of the reasoning before it (content.ts) |
 * | `thoughtSignature` of Gemini's own             | the same, of kind `gemini_signature`      |
 * | `executableCode`, `codeExecutionResult`        | dropped: Gemini ran the code; its outcome is in the text that follows |
 *
 * Gemini 2.5 leaves call ids out: a call gets one from its place in the history, the same
 * on every request, and a result without an id answers the earliest unanswered call of
 * its function, as the API pairs them (so does one whose id names no call: Gemini CLI
 * makes up ids for calls that came without). An Anthropic signature comes back only with its
 * thought text (Gemini CLI keeps no thought parts): without it, it is dropped, since
 * Anthropic refuses a signature whose thinking is missing.
 */
import { convertError } from "../../translate/errors.ts";
import type {
  IrAssistantPart,
  IrReasoning,
  IrText,
  IrTurn,
  IrUserPart,
} from "../../translate/ir.ts";
import { asRecord, listOf } from "../json_read.ts";
import {
  argumentsOf,
  mediaOf,
  mediaSource,
  opaqueOfSignature,
  resultOfResponse,
} from "./content.ts";
import { PLACEHOLDER_SIGNATURE } from "./contents_encode.ts";
import { field, objectField, stringField } from "./fields.ts";

type Part = Record<string, unknown>;

// Parts of code Gemini ran itself: the client's record of it, not input to translate.
const SERVER_PARTS = ["executableCode", "codeExecutionResult"];

/** `systemInstruction`: the text of its parts (its `role` means nothing to the API). */
export function decodeSystemInstruction(value: unknown): IrText[] {
  const instruction = asRecord(value);
  if (!instruction) {
    return typeof value === "string" && value ? [{ type: "text", text: value }] : [];
  }
  return listOf(instruction.parts).flatMap((entry, j): IrText[] => {
    const part = asRecord(entry) ?? {};
    if (typeof part.text !== "string") {
      throw convertError(`systemInstruction.parts[${j}]`, "a system instruction holds only text");
    }
    return part.text ? [{ type: "text", text: part.text }] : [];
  });
}

/** Decodes `contents` into turns; names of dropped fields go to `dropped`. */
export function decodeContents(contents: unknown, dropped: string[]): IrTurn[] {
  const decoder = new ContentsDecoder(dropped);
  listOf(contents).forEach((value, i) => decoder.content(asRecord(value) ?? {}, i));
  return decoder.turns;
}

class ContentsDecoder {
  readonly turns: IrTurn[] = [];
  readonly #dropped: string[];
  /** Ids of the calls not answered yet, by function name, earliest first. */
  readonly #unanswered = new Map<string, string[]>();
  /** Ids of every call in the history. */
  readonly #calls = new Set<string>();

  constructor(dropped: string[]) {
    this.#dropped = dropped;
  }

  content(content: Record<string, unknown>, i: number): void {
    const role = content.role ?? "user";
    const path = `contents[${i}]`;
    if (role !== "user" && role !== "model" && role !== "function") {
      throw convertError(`${path}.role`, `the role ${JSON.stringify(role)} is not user or model`);
    }
    const kind = role === "model" ? "assistant" : "user";
    let turn = this.turns[this.turns.length - 1];
    if (turn?.role !== kind) {
      turn = kind === "assistant" ? { role: "assistant", parts: [] } : { role: "user", parts: [] };
      this.turns.push(turn);
    }
    listOf(content.parts).forEach((value, j) => {
      const part = asRecord(value) ?? {};
      const where = `${path}.parts[${j}]`;
      if (SERVER_PARTS.some((name) => field(part, name) !== undefined)) {
        this.#drop(`${where} (code execution)`);
      } else if (turn.role === "assistant") this.#modelPart(turn.parts, part, where, i, j);
      else if (turn.role === "user") this.#userPart(turn.parts, part, where);
    });
  }

  #drop(what: string): void {
    if (!this.#dropped.includes(what)) this.#dropped.push(what);
  }

  #userPart(parts: IrUserPart[], part: Part, where: string): void {
    if (typeof part.text === "string") {
      if (part.text) parts.push({ type: "text", text: part.text });
      return;
    }
    const media = mediaSource(part);
    if (media) {
      parts.push(this.#media(media, part, where));
      return;
    }
    const response = objectField(part, "functionResponse");
    if (response) {
      const name = stringField(response, "name");
      const own = stringField(response, "id");
      // An id no call of the history has (a client made one up for a call without) is no help.
      const callId = (this.#calls.has(own) ? own : this.#unanswered.get(name)?.shift()) || own ||
        `call_${name}`;
      this.#answered(name, callId);
      const result = resultOfResponse(field(response, "response"));
      // Gemini 3 returns images and documents of a function beside its response.
      listOf(field(response, "parts")).forEach((value, k) => {
        const inner = asRecord(value) ?? {};
        const source = mediaSource(inner);
        if (source) {
          result.content.push(this.#media(source, inner, `${where}.functionResponse.parts[${k}]`));
        }
      });
      parts.push({ type: "tool_result", callId, ...result });
      return;
    }
    throw convertError(where, `a ${describe(part)} part cannot be translated in a user turn`);
  }

  #media(
    media: NonNullable<ReturnType<typeof mediaSource>>,
    part: Part,
    where: string,
  ) {
    const name = stringField(
      objectField(part, "fileData") ?? objectField(part, "inlineData"),
      "displayName",
    );
    const decoded = mediaOf(media.mimeType, media.source, name || undefined);
    if (!decoded) {
      throw convertError(
        where,
        `${media.mimeType || "untyped"} data has no equivalent on this channel's protocol`,
      );
    }
    return decoded;
  }

  #answered(name: string, callId: string): void {
    const ids = this.#unanswered.get(name);
    const at = ids?.indexOf(callId) ?? -1;
    if (at >= 0) ids!.splice(at, 1);
  }

  #modelPart(parts: IrAssistantPart[], part: Part, where: string, i: number, j: number): void {
    const last = parts[parts.length - 1];
    if (part.thought === true) {
      const text = typeof part.text === "string" ? part.text : "";
      if (last?.type === "reasoning" && !last.opaque) last.text += text;
      else parts.push({ type: "reasoning", text });
      this.#signature(parts, part, where);
      return;
    }
    this.#signature(parts, part, where);
    if (typeof part.text === "string") {
      const tail = parts[parts.length - 1];
      if (!part.text) return;
      if (tail?.type === "text") tail.text += part.text;
      else parts.push({ type: "text", text: part.text });
      return;
    }
    const call = objectField(part, "functionCall");
    if (call) {
      const name = stringField(call, "name");
      const id = stringField(call, "id") || `call_${i}_${j}`;
      this.#unanswered.set(name, [...this.#unanswered.get(name) ?? [], id]);
      this.#calls.add(id);
      parts.push({ type: "tool_call", id, name, arguments: argumentsOf(field(call, "args")) });
      return;
    }
    // An image the model made, or anything else: no IR part holds it.
    if (mediaSource(part)) this.#drop(`${where} (generated media)`);
    else if (field(part, "thoughtSignature") === undefined) {
      throw convertError(where, `a ${describe(part)} part cannot be translated in a model turn`);
    }
  }

  /**
   * A part's `thoughtSignature` (Gemini's own, or state tollgate wrapped there) goes on the
   * reasoning just before the part, or on an empty reasoning part of its own.
   */
  #signature(parts: IrAssistantPart[], part: Part, where: string): void {
    const signature = stringField(part, "thoughtSignature");
    // Gemini CLI's placeholder (and tollgate's own) carries nothing.
    if (!signature || signature === PLACEHOLDER_SIGNATURE) return;
    const opaque = opaqueOfSignature(signature);
    const last = parts[parts.length - 1];
    const open: IrReasoning | undefined = last?.type === "reasoning" && !last.opaque
      ? last
      : undefined;
    if (opaque.kind === "anthropic_signature" && !open?.text) {
      this.#drop(`${where}.thoughtSignature (its thought text was not sent back)`);
      return;
    }
    if (open) open.opaque = opaque;
    else parts.push({ type: "reasoning", text: "", opaque });
  }
}

function describe(part: Part): string {
  const keys = Object.keys(part).filter((key) => key !== "thoughtSignature");
  return keys.length > 0 ? `\`${keys[0]}\`` : "empty";
}
