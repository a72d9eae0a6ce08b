/**
 * Output items (OpenAI `ResponseOutputItem`: `message`, `reasoning`, `function_call`,
 * `custom_tool_call`) <-> IR parts, shared by the request decoder (history a client
 * sends back), the response and stream decoders and the encoders. Opaque reasoning state
 * lives in `encrypted_content`: OpenAI's own raw, another provider's wrapped (translate/opaque.ts).
 */
import { fields, listOf, stringOr } from "../json_read.ts";
import { argumentsText } from "../chat/messages_decode.ts";
import { customInput } from "../chat/response_encode.ts";
import type { ResponseEncodeContext } from "../../translate/codec.ts";
import type { IrReasoning, IrToolCall } from "../../translate/ir.ts";
import { unwrapOpaque, wrapOpaque } from "../../translate/opaque.ts";

type Item = Record<string, unknown>;

// The text is the summary parts, or from servers that send raw reasoning (gpt-oss ones)
// the `reasoning_text` content, joined by blank lines.
/** A reasoning item as IR reasoning: its text and its state. */
export function reasoningOfItem(item: Item): IrReasoning {
  const summary = listOf(item.summary).map((part) => stringOr(fields(part).text));
  const content = listOf(item.content).map((part) => stringOr(fields(part).text));
  const reasoning: IrReasoning = {
    type: "reasoning",
    text: (summary.length > 0 ? summary : content).join("\n\n"),
  };
  const encrypted = stringOr(item.encrypted_content);
  // A gateway in front may have wrapped another provider's state: unwrap it either way.
  if (encrypted) reasoning.opaque = unwrapOpaque(encrypted, "openai_encrypted");
  const itemId = stringOr(item.id);
  if (itemId) reasoning.itemId = itemId;
  return reasoning;
}

/** A `function_call` item, or a `custom_tool_call` whose raw input travels as `{"input": …}`. */
export function callOfItem(item: Item): IrToolCall {
  const call: IrToolCall = {
    type: "tool_call",
    id: stringOr(item.call_id) || stringOr(item.id),
    name: stringOr(item.name),
    arguments: item.type === "custom_tool_call"
      ? JSON.stringify({ input: stringOr(item.input) })
      : argumentsText(item.arguments),
  };
  const itemId = stringOr(item.id);
  if (itemId) call.itemId = itemId;
  return call;
}

/** A message item holding `content` (its status `completed` unless told). */
export function messageItem(id: string, content: Item[], status = "completed"): Item {
  return { id, type: "message", status, role: "assistant", content };
}

/** An `output_text` (or `refusal`) content part. */
export function contentPart(kind: "text" | "refusal", text: string): Item {
  return kind === "text"
    ? { type: "output_text", annotations: [], logprobs: [], text }
    : { type: "refusal", refusal: text };
}

/** A reasoning item: its text as one summary part, its state in `encrypted_content`. */
export function reasoningItem(part: IrReasoning, id: string): Item {
  const item: Item = {
    id,
    type: "reasoning",
    summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
  };
  if (part.opaque) item.encrypted_content = wrapOpaque(part.opaque, "openai_encrypted");
  return item;
}

// `ResponseCustomToolCall` carries the raw input; `ResponseFunctionToolCall` the JSON text.
/** A call item: `custom_tool_call` for a tool the client declared custom, else `function_call`. */
export function callItem(call: IrToolCall, custom: boolean, id: string, status: string): Item {
  return custom
    ? {
      id,
      type: "custom_tool_call",
      status,
      call_id: call.id,
      name: call.name,
      input: customInput(call.arguments),
    }
    : {
      id,
      type: "function_call",
      status,
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    };
}

/** The item id for a part: the upstream's when it had one (`rs_…`, `fc_…`), else a fresh one. */
export function itemIdOf(
  part: { itemId?: string },
  prefix: string,
  context: ResponseEncodeContext,
): string {
  // An id of another prefix (a chat upstream's detail id) would misname the item's type.
  return part.itemId?.startsWith(prefix) ? part.itemId : context.newId(prefix);
}
