/**
 * The IR's turns as a Gemini upstream's `contents` (Gemini API reference, `Content`,
 * `Part`, `FunctionCall`, `FunctionResponse`; "Function calling", "Thought signatures").
 *
 * | IR                      | Gemini                                                        |
 * |-------------------------|---------------------------------------------------------------|
 * | user / assistant turns  | `role` `user` / `model`; consecutive turns of one role merged  |
 * | system turns            | left out: they join `systemInstruction` (request_encode.ts)   |
 * | text, refusal           | `text` (empty text left out: the API refuses it)              |
 * | image, document         | `inlineData` (base64), `fileData` (URL), text (content.ts)    |
 * | tool_call               | `functionCall` {id, name, args}                                |
 * | tool_result             | `functionResponse` {id, name (its call's), response: {output} or {error}}, first in its content; its images and documents follow as parts |
 * | reasoning               | its text dropped (Gemini takes no thoughts back); Gemini's own signature (opaque `gemini_signature`) on the next part, as Gemini placed it |
 *
 * Gemini 3 refuses a function call of the current turn without a `thoughtSignature` (the
 * signature of the thought before it). A history Gemini made carries its signatures back
 * (above); else the first call of each model content since the last user text gets the
 * placeholder Google documents for a history it did not make, as Gemini CLI does
 * (`ensureActiveLoopHasThoughtSignatures`).
 */
import type { IrAssistantPart, IrTurn, IrUserPart } from "../../translate/ir.ts";
import { mediaPart, responseOfResult } from "./content.ts";
import { inputOf } from "../../translate/encoding.ts";
import type { Drop } from "../../translate/encoding.ts";

/** A content or part as sent. */
type Json = Record<string, unknown>;
/** The `thoughtSignature` that lets Gemini 3 take a function call it did not make. */
export const PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator";

/** The turns as `contents`; system turns are left out. */
export function encodeContents(turns: IrTurn[], drop: Drop): Json[] {
  const names = callNames(turns);
  const contents: { role: string; parts: Json[] }[] = [];
  for (const turn of turns) {
    if (turn.role === "system") continue;
    const parts = turn.role === "user"
      ? userParts(turn.parts, names, drop)
      : modelParts(turn.parts, drop);
    if (parts.length === 0) continue;
    const role = turn.role === "user" ? "user" : "model";
    const last = contents[contents.length - 1];
    if (last?.role === role) {
      last.parts = role === "user"
        ? responsesFirst([...last.parts, ...parts])
        : [...last.parts, ...parts];
    } else contents.push({ role, parts });
  }
  signActiveLoop(contents);
  return contents;
}

/** The function name of each call id: a `functionResponse` must name its function. */
function callNames(turns: IrTurn[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const turn of turns) {
    if (turn.role !== "assistant") continue;
    for (const part of turn.parts) if (part.type === "tool_call") names.set(part.id, part.name);
  }
  return names;
}

function responsesFirst(parts: Json[]): Json[] {
  return [
    ...parts.filter((part) => part.functionResponse !== undefined),
    ...parts.filter((part) => part.functionResponse === undefined),
  ];
}

function userParts(parts: IrUserPart[], names: Map<string, string>, drop: Drop): Json[] {
  const out: Json[] = [];
  const media: Json[] = [];
  for (const part of parts) {
    if (part.cacheControl) drop("cache_control", "Gemini caches prompts by itself");
    if (part.type === "text") {
      if (part.text) out.push({ text: part.text });
    } else if (part.type === "tool_result") {
      const texts: string[] = [];
      for (const item of part.content) {
        if (item.type === "text") texts.push(item.text);
        else {
          const encoded = mediaPart(item);
          if (encoded) media.push(encoded);
          else {drop(
              `tool_result ${item.type} ${item.source.kind} source`,
              "Gemini cannot point at it",
            );}
        }
      }
      out.push({
        functionResponse: {
          id: part.callId,
          name: names.get(part.callId) ?? part.callId,
          response: responseOfResult(texts.join("\n"), part.isError),
        },
      });
    } else {
      const encoded = mediaPart(part);
      if (encoded) out.push(encoded);
      else drop(`${part.type} ${part.source.kind} source`, "Gemini cannot point at it");
    }
  }
  return responsesFirst([...out, ...media]);
}

function modelParts(parts: IrAssistantPart[], drop: Drop): Json[] {
  const out: Json[] = [];
  // Gemini's signature of the thoughts before, for the next part.
  let signature: string | undefined;
  const signed = (part: Json): Json => {
    if (signature === undefined) return part;
    const carried = { ...part, thoughtSignature: signature };
    signature = undefined;
    return carried;
  };
  for (const part of parts) {
    if (part.type === "text" || part.type === "refusal") {
      if (part.text) out.push(signed({ text: part.text }));
    } else if (part.type === "tool_call") {
      out.push(
        signed({ functionCall: { id: part.id, name: part.name, args: inputOf(part.arguments) } }),
      );
    } else if (part.opaque?.kind === "gemini_signature") {
      signature = part.opaque.value;
    } else drop("reasoning", "Gemini takes back only its own signed thoughts");
  }
  return out;
}

/**
 * Gives the first call of each model content after the last user text the placeholder
 * signature (the model contents of the turn in progress, which Gemini 3 checks).
 */
function signActiveLoop(contents: { role: string; parts: Json[] }[]): void {
  let start = contents.length;
  while (start > 0) {
    const content = contents[start - 1]!;
    const prompt = content.role === "user" &&
      content.parts.some((part) => typeof part.text === "string") &&
      !content.parts.some((part) => part.functionResponse !== undefined);
    if (prompt) break;
    start--;
  }
  for (const content of contents.slice(start)) {
    if (content.role !== "model") continue;
    const call = content.parts.find((part) => part.functionCall !== undefined);
    if (call && call.thoughtSignature === undefined) call.thoughtSignature = PLACEHOLDER_SIGNATURE;
  }
}
