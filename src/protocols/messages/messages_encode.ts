/**
 * The IR's system prompt and turns as a messages upstream's `system` and `messages`
 * (Anthropic `MessageParam`). The API has no system role in `messages` for most
 * Anthropic-compatible servers, so system turns join `system`; tool results lead their
 * user message as the API requires; consecutive turns of one role merge (the API wants
 * roles to alternate); reasoning goes back only as Anthropic's own signed or redacted
 * thinking, since the API rejects a signature it did not make.
 */
import type { IrAssistantPart, IrText, IrTurn, IrUserPart } from "../../translate/ir.ts";
import { cacheField, encodeDocument, encodeImage, toolId } from "./content.ts";
import { inputOf } from "../../translate/encoding.ts";
import type { Drop } from "../../translate/encoding.ts";

/** A content block or message as sent. */
export type Block = Record<string, unknown>;
/** `system`: a string, or text blocks when any part carries a `cache_control` marker. */
export function encodeSystem(parts: IrText[]): string | Block[] {
  if (!parts.some((part) => part.cacheControl)) return parts.map((part) => part.text).join("\n\n");
  // The API rejects empty text blocks.
  return parts.filter((part) => part.text).map((part) => ({
    type: "text",
    text: part.text,
    ...cacheField(part),
  }));
}

/** The turns as `messages`: system turns are left out (they went to `system`). */
export function encodeTurns(turns: IrTurn[], drop: Drop): Block[] {
  const messages: { role: string; content: Block[] }[] = [];
  for (const turn of turns) {
    if (turn.role === "system") continue;
    const content = turn.role === "user"
      ? userBlocks(turn.parts, drop)
      : assistantBlocks(turn.parts, drop);
    if (content.length === 0) continue;
    const last = messages[messages.length - 1];
    if (last?.role === turn.role) {
      // Tool results must lead a user message: a merged turn's results move up.
      last.content = turn.role === "user"
        ? resultsFirst([...last.content, ...content])
        : [...last.content, ...content];
    } else messages.push({ role: turn.role, content });
  }
  return messages;
}

/**
 * Whether the history ends in a tool loop whose assistant message does not start with
 * thinking: with thinking on, the API rejects that ("a final `assistant` message must
 * start with a thinking block"), as happens when the client's earlier thinking came from
 * another provider or was not kept.
 */
export function unsignedToolLoop(messages: Block[]): boolean {
  const last = messages[messages.length - 1];
  const previous = messages[messages.length - 2];
  const blocks = (message: Block | undefined) => (message?.content ?? []) as Block[];
  if (last?.role !== "user" || !blocks(last).some((block) => block.type === "tool_result")) {
    return false;
  }
  const first = blocks(previous)[0]?.type;
  return previous?.role === "assistant" &&
    blocks(previous).some((block) => block.type === "tool_use") &&
    first !== "thinking" && first !== "redacted_thinking";
}

function resultsFirst(blocks: Block[]): Block[] {
  return [
    ...blocks.filter((block) => block.type === "tool_result"),
    ...blocks.filter((block) => block.type !== "tool_result"),
  ];
}

function userBlocks(parts: IrUserPart[], drop: Drop): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      // The API rejects empty text blocks.
      if (part.text) blocks.push({ type: "text", text: part.text, ...cacheField(part) });
    } else if (part.type === "tool_result") {
      const content = part.content.flatMap((item): Block[] => {
        if (item.type === "text") {
          return item.text ? [{ type: "text", text: item.text, ...cacheField(item) }] : [];
        }
        const encoded = item.type === "image" ? encodeImage(item) : encodeDocument(item);
        if (!encoded) drop(`tool_result ${item.type}`, "messages cannot point at its source");
        return encoded ? [encoded] : [];
      });
      // Plain text goes as a string, the form every Anthropic-compatible server takes.
      const plain = content.every((block) => block.type === "text" && !block.cache_control);
      const result: Block = { type: "tool_result", tool_use_id: toolId(part.callId) };
      if (content.length > 0) {
        result.content = plain ? content.map((block) => block.text).join("\n") : content;
      }
      if (part.isError) result.is_error = true;
      blocks.push({ ...result, ...cacheField(part) });
    } else {
      const encoded = part.type === "image" ? encodeImage(part) : encodeDocument(part);
      if (encoded) blocks.push(encoded);
      else drop(`${part.type} ${part.source.kind} source`, "messages cannot point at it");
    }
  }
  return resultsFirst(blocks);
}

function assistantBlocks(parts: IrAssistantPart[], drop: Drop): Block[] {
  const blocks: Block[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      if (part.text) blocks.push({ type: "text", text: part.text, ...cacheField(part) });
    } else if (part.type === "refusal") {
      if (part.text) blocks.push({ type: "text", text: part.text });
    } else if (part.type === "tool_call") {
      blocks.push({
        type: "tool_use",
        id: toolId(part.id),
        name: part.name,
        input: inputOf(part.arguments),
      });
    } else if (part.opaque?.kind === "anthropic_signature") {
      blocks.push({ type: "thinking", thinking: part.text, signature: part.opaque.value });
    } else if (part.opaque?.kind === "anthropic_redacted") {
      blocks.push({ type: "redacted_thinking", data: part.opaque.value });
    } else {
      // Thinking without Anthropic's signature would be rejected.
      drop("reasoning", "only Anthropic's own signed thinking can be sent back");
    }
  }
  return blocks;
}
