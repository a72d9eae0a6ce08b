/**
 * A chat client's `messages` (OpenAI `ChatCompletionMessageParam`) as the IR's system
 * prompt and turns. Leading system/developer messages are the system prompt, later ones
 * system turns; `tool` (and legacy `function`) messages are tool results in a user turn.
 */
import { asRecord, listOf, stringOr } from "../json_read.ts";
import { convertError } from "../../translate/errors.ts";
import type {
  IrAssistantPart,
  IrText,
  IrToolCall,
  IrToolResult,
  IrTurn,
  IrUserPart,
} from "../../translate/ir.ts";
import { documentOfFile, sourceOfUrl } from "./content.ts";
import { reasoningOfMessage } from "./reasoning_details.ts";

/** The system prompt and turns of a chat request. */
export interface DecodedMessages {
  system: IrText[];
  turns: IrTurn[];
}

/** Decodes `messages`; throws `convert_request_failed` naming a part or role it cannot carry. */
export function decodeMessages(messages: unknown[]): DecodedMessages {
  const system: IrText[] = [];
  const turns: IrTurn[] = [];
  // Legacy `function_call`s carry no id: their results find them by name, in order.
  const legacyCalls = new Map<string, string[]>();
  let leading = true;
  const pushResult = (result: IrToolResult) => {
    const last = turns[turns.length - 1];
    if (last?.role === "user" && last.parts.every((part) => part.type === "tool_result")) {
      last.parts.push(result);
    } else turns.push({ role: "user", parts: [result] });
  };
  messages.forEach((value, i) => {
    const path = `messages[${i}]`;
    const message = asRecord(value);
    if (!message) throw convertError(path, "a message must be an object");
    const role = message.role;
    if (role === "system" || role === "developer") {
      const parts = textParts(message.content, `${path}.content`);
      if (leading) system.push(...parts);
      else turns.push({ role: "system", parts });
      return;
    }
    leading = false;
    if (role === "user") turns.push({ role: "user", parts: userParts(message.content, path) });
    else if (role === "assistant") {
      turns.push({ role: "assistant", parts: assistantParts(message, path, legacyCalls, i) });
    } else if (role === "tool") {
      pushResult({
        type: "tool_result",
        callId: stringOr(message.tool_call_id),
        content: textParts(message.content, `${path}.content`),
      });
    } else if (role === "function") {
      const name = stringOr(message.name);
      const callId = legacyCalls.get(name)?.shift() ?? `call_${name}`;
      pushResult({ type: "tool_result", callId, content: textParts(message.content, path) });
    } else throw convertError(`${path}.role`, `the role ${JSON.stringify(role)} is unknown`);
  });
  return { system, turns };
}

/** Text content (string or `text` parts), as system, developer and tool messages hold. */
function textParts(content: unknown, path: string): IrText[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return listOf(content).map((value, j) => {
    const part = asRecord(value);
    if (part?.type !== "text") {
      throw convertError(`${path}[${j}]`, `a ${describe(part)} part cannot be translated here`);
    }
    return { type: "text", text: stringOr(part.text), ...cacheOf(part) };
  });
}

/** The parts of a user message: text, images and files; audio input has no equivalent. */
function userParts(content: unknown, path: string): IrUserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return listOf(content).map((value, j): IrUserPart => {
    const partPath = `${path}.content[${j}]`;
    const part = asRecord(value) ?? {};
    switch (part.type) {
      case "text":
        return { type: "text", text: stringOr(part.text), ...cacheOf(part) };
      case "image_url": {
        // Some clients send the URL as a bare string rather than `{url, detail}`.
        const image = asRecord(part.image_url) ?? { url: part.image_url };
        const url = stringOr(image.url);
        if (!url) throw convertError(`${partPath}.image_url.url`, "the image has no URL");
        const detail = stringOr(image.detail);
        const detailed = detail ? { detail } : {};
        return { type: "image", source: sourceOfUrl(url), ...detailed, ...cacheOf(part) };
      }
      case "file":
        return {
          ...documentOfFile(
            asRecord(part.file) ?? {},
            `${partPath}.file`,
            "neither `file_data` nor `file_id`",
          ),
          ...cacheOf(part),
        };
      case "input_audio":
        throw convertError(partPath, "audio input has no equivalent on this channel's protocol");
      default:
        throw convertError(partPath, `a ${describe(part)} part cannot be translated`);
    }
  });
}

/** An assistant message in history: reasoning, text, refusal, then its tool calls. */
function assistantParts(
  message: Record<string, unknown>,
  path: string,
  legacyCalls: Map<string, string[]>,
  position: number,
): IrAssistantPart[] {
  if (message.audio != null) {
    throw convertError(`${path}.audio`, "an earlier audio answer has no equivalent here");
  }
  const parts: IrAssistantPart[] = [...reasoningOfMessage(message)];
  const { content } = message;
  if (typeof content === "string") {
    if (content) parts.push({ type: "text", text: content });
  } else {
    listOf(content).forEach((value, j) => {
      const part = asRecord(value);
      if (part?.type === "text") parts.push({ type: "text", text: stringOr(part.text) });
      else if (part?.type === "refusal") {
        parts.push({ type: "refusal", text: stringOr(part.refusal) });
      } else throw convertError(`${path}.content[${j}]`, `a ${describe(part)} part is unknown`);
    });
  }
  const refusal = stringOr(message.refusal);
  if (refusal) parts.push({ type: "refusal", text: refusal });
  listOf(message.tool_calls).forEach((value, j) => {
    parts.push(toolCallOf(asRecord(value) ?? {}, `${path}.tool_calls[${j}]`));
  });
  const legacy = asRecord(message.function_call);
  if (legacy) {
    const name = stringOr(legacy.name);
    const id = `call_${position}_${name}`;
    legacyCalls.set(name, [...legacyCalls.get(name) ?? [], id]);
    parts.push({ type: "tool_call", id, name, arguments: argumentsText(legacy.arguments) });
  }
  return parts;
}

/** A tool call in history: a function call, or a custom tool's input as `{"input": …}`. */
function toolCallOf(call: Record<string, unknown>, path: string): IrToolCall {
  const id = stringOr(call.id);
  if (call.type === "custom") {
    const custom = asRecord(call.custom) ?? {};
    const input = JSON.stringify({ input: stringOr(custom.input) });
    return { type: "tool_call", id, name: stringOr(custom.name), arguments: input };
  }
  const fn = asRecord(call.function);
  if (!fn || (call.type !== undefined && call.type !== "function")) {
    throw convertError(path, `a ${describe(call)} tool call is unknown`);
  }
  return { type: "tool_call", id, name: stringOr(fn.name), arguments: argumentsText(fn.arguments) };
}

/** Arguments as JSON text; some clients send the parsed object instead. */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  return value === undefined || value === null ? "" : JSON.stringify(value);
}

/**
 * Anthropic's `cache_control` marker, which OpenRouter accepts on chat content parts
 * (its "Prompt Caching" guide): kept, so a messages upstream caches what the client marked.
 */
function cacheOf(part: Record<string, unknown>): { cacheControl?: Record<string, unknown> } {
  const marker = asRecord(part.cache_control);
  return marker ? { cacheControl: marker } : {};
}

function describe(part: Record<string, unknown> | undefined): string {
  return typeof part?.type === "string" ? `\`${part.type}\`` : "typeless";
}
