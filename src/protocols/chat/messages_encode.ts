/**
 * The IR's system prompt and turns as chat `messages` for an upstream (OpenAI
 * `ChatCompletionMessageParam`). System text goes as `role: "system"` (many compatible
 * servers reject `developer`); each tool result becomes its own `tool` message, placed
 * before the user text of its turn; reasoning is not sent back (chat has no standard
 * field for it, and a foreign signature would mean nothing to a chat upstream).
 */
import type {
  IrAssistantPart,
  IrText,
  IrToolResult,
  IrTurn,
  IrUserPart,
} from "../../translate/ir.ts";
import { encodeDocument, encodeImage } from "./content.ts";
import type { Drop } from "../../translate/encoding.ts";

/** The chat `messages` of a system prompt and turns. */
export function encodeMessages(
  system: IrText[],
  turns: IrTurn[],
  drop: Drop,
): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [];
  if (system.length > 0) messages.push(systemMessage(system, drop));
  for (const turn of turns) {
    if (turn.role === "system") messages.push(systemMessage(turn.parts, drop));
    else if (turn.role === "user") messages.push(...userMessages(turn.parts, drop));
    else {
      const message = assistantMessage(turn.parts, drop);
      if (message) messages.push(message);
    }
  }
  return messages;
}

function noteCacheControl(part: { cacheControl?: unknown }, drop: Drop): void {
  if (part.cacheControl) drop("cache_control", "chat completions has no prompt-cache markers");
}

// One system message: some compatible servers' chat templates take only one.
function systemMessage(parts: IrText[], drop: Drop): Record<string, unknown> {
  parts.forEach((part) => noteCacheControl(part, drop));
  return { role: "system", content: parts.map((part) => part.text).join("\n\n") };
}

/** Tool results first, one `tool` message each, then the user's own content if any. */
function userMessages(parts: IrUserPart[], drop: Drop): Record<string, unknown>[] {
  const messages: Record<string, unknown>[] = [];
  const content: Record<string, unknown>[] = [];
  for (const part of parts) {
    noteCacheControl(part, drop);
    if (part.type === "tool_result") messages.push(toolMessage(part, drop));
    else if (part.type === "text") content.push({ type: "text", text: part.text });
    else {
      const encoded = part.type === "image" ? encodeImage(part) : encodeDocument(part);
      if (encoded) content.push(encoded);
      else {
        drop(
          `${part.type} ${part.source.kind} source`,
          "chat completions cannot point at it (no file id for images, no URL for files)",
        );
      }
    }
  }
  if (content.length === 1 && content[0]!.type === "text") {
    messages.push({ role: "user", content: content[0]!.text });
  } else if (content.length > 0) messages.push({ role: "user", content });
  return messages;
}

function toolMessage(result: IrToolResult, drop: Drop): Record<string, unknown> {
  const texts: string[] = [];
  for (const part of result.content) {
    if (part.type === "text") texts.push(part.text);
    else drop(`tool_result ${part.type}`, "chat tool messages carry text only");
  }
  if (result.isError) drop("tool_result is_error", "chat tool messages have no error flag");
  return { role: "tool", tool_call_id: result.callId, content: texts.join("\n") };
}

/**
 * An assistant message: its text (a refusal counts as text the model said), and its
 * tool calls. `content` is null beside tool calls, as the API itself answers.
 */
function assistantMessage(
  parts: IrAssistantPart[],
  drop: Drop,
): Record<string, unknown> | undefined {
  let text = "";
  const calls: Record<string, unknown>[] = [];
  for (const part of parts) {
    if (part.type === "text" || part.type === "refusal") text += part.text;
    else if (part.type === "tool_call") {
      calls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: part.arguments },
      });
    } else drop("reasoning", "chat completions upstreams take no reasoning back");
  }
  if (!text && calls.length === 0) return undefined;
  const message: Record<string, unknown> = { role: "assistant", content: text || null };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}
