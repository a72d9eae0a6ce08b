/**
 * A responses client's `input` (OpenAI `ResponseInput`, a string or `ResponseInputItem`s)
 * as IR turns, including what Codex CLI sends: developer messages, reasoning items with
 * `encrypted_content`, custom (freeform) tool calls and their outputs. Leading
 * system/developer messages join the system prompt, later ones are system turns;
 * reasoning, assistant messages and calls in a row are one assistant turn; call outputs
 * are tool results in a user turn, merged with the user message that follows.
 */
import { asRecord, listOf, stringOr } from "../json_read.ts";
import { convertError } from "../../translate/errors.ts";
import type {
  IrAssistantPart,
  IrText,
  IrToolResult,
  IrTurn,
  IrUserPart,
} from "../../translate/ir.ts";
import { decodeInputPart, describe } from "./content.ts";
import { callOfItem, reasoningOfItem } from "./items.ts";

// Items of OpenAI's hosted tools and server-side state (`ResponseInputItem`): their tools
// are not offered to another upstream, and what they did is OpenAI's to replay.
const HOSTED_ITEMS = new Set([
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "web_search_call",
  "tool_search_call",
  "tool_search_output",
  "additional_tools",
  "configuration_update",
  "compaction",
  "compaction_trigger",
  "image_generation_call",
  "code_interpreter_call",
  "local_shell_call",
  "local_shell_call_output",
  "shell_call",
  "shell_call_output",
  "apply_patch_call",
  "apply_patch_call_output",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "mcp_call",
  "program",
  "program_output",
]);

// Leading system text goes to `system` (after `instructions`), dropped items' names to
// `dropped`; an item or part the IR cannot carry is a `convert_request_failed`.
/** The turns of a responses `input`. */
export function decodeInput(input: unknown, system: IrText[], dropped: string[]): IrTurn[] {
  if (typeof input === "string") return [{ role: "user", parts: [{ type: "text", text: input }] }];
  const turns: IrTurn[] = [];
  listOf(input).forEach((value, i) => {
    const path = `input[${i}]`;
    const item = asRecord(value);
    if (!item) throw convertError(path, "an input item must be an object");
    // `EasyInputMessage` may leave out its `type`.
    const type = item.type ?? "message";
    if (type === "message") decodeMessage(item, path, turns, system, dropped);
    else if (type === "function_call" || type === "custom_tool_call") {
      addAssistant(turns, [callOfItem(item)]);
    } else if (type === "function_call_output" || type === "custom_tool_call_output") {
      addUser(turns, [resultOf(item, path)]);
    } else if (type === "reasoning") addAssistant(turns, [reasoningOfItem(item)]);
    else if (type === "item_reference") {
      throw convertError(path, "an item reference points at OpenAI's stored state; send the item");
    } else if (typeof type === "string" && HOSTED_ITEMS.has(type)) {
      dropped.push(`${path} (${type})`);
    } else throw convertError(`${path}.type`, `the item type ${JSON.stringify(type)} is unknown`);
  });
  return turns;
}

function decodeMessage(
  item: Record<string, unknown>,
  path: string,
  turns: IrTurn[],
  system: IrText[],
  dropped: string[],
): void {
  const role = item.role;
  if (role === "system" || role === "developer") {
    const parts = textParts(item.content, path);
    if (turns.length === 0) system.push(...parts);
    else if (parts.length > 0) turns.push({ role: "system", parts });
  } else if (role === "user") {
    addUser(turns, userParts(item.content, path));
  } else if (role === "assistant") {
    // Codex's commentary / final-answer label means something to OpenAI's models only.
    if (item.phase != null && !dropped.includes("input[].phase")) dropped.push("input[].phase");
    addAssistant(turns, assistantParts(item.content, path));
  } else throw convertError(`${path}.role`, `the role ${JSON.stringify(role)} is unknown`);
}

/** A system or developer message's text; other content has no place in a system prompt. */
function textParts(content: unknown, path: string): IrText[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return listOf(content).map((value, j) => {
    const part = decodeInputPart(value, `${path}.content[${j}]`);
    if (part.type !== "text") {
      throw convertError(`${path}.content[${j}]`, `a system message cannot hold a ${part.type}`);
    }
    return part;
  });
}

function userParts(content: unknown, path: string): IrUserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return listOf(content).map((value, j) => decodeInputPart(value, `${path}.content[${j}]`));
}

/** An assistant message's content: a string, or `output_text`/`input_text` and `refusal`. */
function assistantParts(content: unknown, path: string): IrAssistantPart[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  const parts: IrAssistantPart[] = [];
  listOf(content).forEach((value, j) => {
    const part = asRecord(value) ?? {};
    if (part.type === "output_text" || part.type === "input_text") {
      if (stringOr(part.text)) parts.push({ type: "text", text: stringOr(part.text) });
    } else if (part.type === "refusal") {
      parts.push({ type: "refusal", text: stringOr(part.refusal) });
    } else {
      throw convertError(`${path}.content[${j}]`, `a ${describe(part)} part cannot be translated`);
    }
  });
  return parts;
}

/** A `function_call_output` / `custom_tool_call_output`: a string or input content parts. */
function resultOf(item: Record<string, unknown>, path: string): IrToolResult {
  const { output } = item;
  const content = typeof output === "string"
    ? (output ? [{ type: "text" as const, text: output }] : [])
    : listOf(output).map((value, j) => decodeInputPart(value, `${path}.output[${j}]`));
  return { type: "tool_result", callId: stringOr(item.call_id), content };
}

function addUser(turns: IrTurn[], parts: IrUserPart[]): void {
  const last = turns[turns.length - 1];
  if (last?.role === "user") last.parts.push(...parts);
  else turns.push({ role: "user", parts });
}

function addAssistant(turns: IrTurn[], parts: IrAssistantPart[]): void {
  if (parts.length === 0) return;
  const last = turns[turns.length - 1];
  if (last?.role === "assistant") last.parts.push(...parts);
  else turns.push({ role: "assistant", parts });
}
