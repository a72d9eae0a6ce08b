/**
 * The IR's turns as responses `input` items for an upstream (OpenAI `ResponseInputItem`):
 * messages (`EasyInputMessage`, with `type: "message"` for compatible servers that want
 * it), `function_call` / `custom_tool_call` items for calls and `*_output` items for
 * their results, and reasoning items only when they carry OpenAI's own
 * `encrypted_content` (another provider's state would be rejected).
 */

import { customInput } from "../chat/response_encode.ts";
import type { IrAssistantPart, IrToolResult, IrTurn, IrUserPart } from "../../translate/ir.ts";
import { encodeInputPart } from "./content.ts";
import type { Drop } from "../../translate/encoding.ts";

type Item = Record<string, unknown>;

/** The input items of the turns; `custom` names the tools declared freeform. */
export function encodeInput(turns: IrTurn[], custom: Set<string>, drop: Drop): Item[] {
  const items: Item[] = [];
  // A result answers a custom tool's call with a custom output: its call says which tool.
  const toolOfCall = new Map<string, string>();
  for (const turn of turns) {
    if (turn.role === "system") {
      turn.parts.forEach((part) => noteCache(part, drop));
      const text = turn.parts.map((part) => part.text).join("\n\n");
      items.push({ type: "message", role: "system", content: text });
    } else if (turn.role === "user") {
      items.push(...userItems(turn.parts, toolOfCall, custom, drop));
    } else {
      for (const part of turn.parts) {
        if (part.type === "tool_call") toolOfCall.set(part.id, part.name);
      }
      items.push(...assistantItems(turn.parts, custom, drop));
    }
  }
  return items;
}

function noteCache(part: { cacheControl?: unknown }, drop: Drop): void {
  if (part.cacheControl) {
    drop("cache_control", "responses caches prompts by itself (no cache markers)");
  }
}

/** Tool results first, one output item each, then the user's own content as a message. */
function userItems(
  parts: IrUserPart[],
  toolOfCall: Map<string, string>,
  custom: Set<string>,
  drop: Drop,
): Item[] {
  const items: Item[] = [];
  const content: Item[] = [];
  for (const part of parts) {
    if (part.type === "tool_result") {
      const isCustom = custom.has(toolOfCall.get(part.callId) ?? "");
      items.push(resultItem(part, isCustom, drop));
      continue;
    }
    const encoded = encodeInputPart(part, drop);
    if (encoded) content.push(encoded);
    else drop("image text source", "an image cannot be given as text");
  }
  if (content.length > 0) items.push({ type: "message", role: "user", content });
  return items;
}

/**
 * A call's output: text as a string (what every server takes); with an image or file, the
 * content list `ResponseFunctionCallOutputItemList` allows.
 */
function resultItem(result: IrToolResult, custom: boolean, drop: Drop): Item {
  noteCache(result, drop);
  if (result.isError) drop("tool_result is_error", "responses tool outputs have no error flag");
  const type = custom ? "custom_tool_call_output" : "function_call_output";
  const texts = result.content.flatMap((part) => part.type === "text" ? [part.text] : []);
  if (texts.length === result.content.length) {
    return { type, call_id: result.callId, output: texts.join("\n") };
  }
  const output = result.content.flatMap((part) => {
    const encoded = encodeInputPart(part, drop);
    return encoded ? [encoded] : [];
  });
  return { type, call_id: result.callId, output };
}

/**
 * An assistant turn's items in order: text in a row as one message (a refusal is text the
 * model said), each call as its item, reasoning with OpenAI's state as a reasoning item.
 */
function assistantItems(parts: IrAssistantPart[], custom: Set<string>, drop: Drop): Item[] {
  const items: Item[] = [];
  let text = "";
  const flush = () => {
    if (text) items.push({ type: "message", role: "assistant", content: text });
    text = "";
  };
  for (const part of parts) {
    if (part.type === "text" || part.type === "refusal") {
      text += part.text;
      continue;
    }
    flush();
    if (part.type === "tool_call") {
      // Item ids are left out: with `store: false` the API looks up nothing by them.
      items.push(
        custom.has(part.name)
          ? {
            type: "custom_tool_call",
            call_id: part.id,
            name: part.name,
            input: customInput(part.arguments),
          }
          : { type: "function_call", call_id: part.id, name: part.name, arguments: part.arguments },
      );
    } else if (part.opaque?.kind === "openai_encrypted") {
      items.push({
        type: "reasoning",
        ...(part.itemId ? { id: part.itemId } : {}),
        summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
        encrypted_content: part.opaque.value,
      });
    } else {
      drop("reasoning", "only OpenAI's own encrypted reasoning can be sent back to it");
    }
  }
  flush();
  return items;
}
