/**
 * A messages client's `system` and `messages` (Anthropic `MessageParam`, with the beta
 * blocks of `BetaContentBlockParam`) as the IR's system prompt and turns. `role:
 * "system"` messages (Claude Code sends them) are system turns. Blocks of server-run
 * tools (web search, code execution, MCP) are dropped: the server already ran them and
 * their outcome is in the text that follows. Any other unknown block is refused.
 */
import { fields, listOf, stringOr } from "../json_read.ts";
import { convertError } from "../../translate/errors.ts";
import type {
  IrAssistantPart,
  IrDocument,
  IrImage,
  IrText,
  IrToolResult,
  IrTurn,
  IrUserPart,
} from "../../translate/ir.ts";
import { cacheOf, sourceOf } from "./content.ts";
import { assistantPartOf } from "./response_decode.ts";

type Block = Record<string, unknown>;

// Server-tool calls and results, MCP blocks, container uploads, tool-search changes and
// model fallbacks: the client's record of what the server did, not input to translate.
const SERVER_BLOCK =
  /^(server_tool_use|mcp_tool_use|mcp_tool_listing|container_upload|tool_addition|tool_removal|fallback|.+_tool_result)$/;

/** `system` or a system message's content: a string or text blocks (with `cache_control`). */
export function decodeSystem(content: unknown, path: string): IrText[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return listOf(content).map((value, j) => {
    const block = fields(value);
    if (block.type !== "text") {
      throw convertError(`${path}[${j}]`, `a ${describe(block)} block cannot be a system prompt`);
    }
    return { type: "text", text: stringOr(block.text), ...cacheOf(block) };
  });
}

/** The turns of `messages`; names of dropped blocks go to `dropped`. */
export function decodeMessages(messages: unknown, dropped: string[]): IrTurn[] {
  return listOf(messages).map((value, i): IrTurn => {
    const message = fields(value);
    const path = `messages[${i}]`;
    switch (message.role) {
      case "user":
        return { role: "user", parts: userParts(message.content, path, dropped) };
      case "assistant":
        return { role: "assistant", parts: assistantParts(message.content, path, dropped) };
      case "system":
        return { role: "system", parts: decodeSystem(message.content, `${path}.content`) };
    }
    throw convertError(`${path}.role`, `the role ${JSON.stringify(message.role)} is unknown`);
  });
}

function userParts(content: unknown, path: string, dropped: string[]): IrUserPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return listOf(content).flatMap((value, j): IrUserPart[] => {
    const block = fields(value);
    const where = `${path}.content[${j}]`;
    if (block.type === "tool_result") return [toolResultOf(block, where, dropped)];
    const media = mediaParts(block, where);
    if (media) return media;
    if (isServerBlock(block)) {
      dropped.push(`${where} (${block.type})`);
      return [];
    }
    throw convertError(where, `a ${describe(block)} block cannot be translated`);
  });
}

/**
 * Text, image, document and search-result blocks (what user content and tool results
 * share), or undefined for any other block.
 */
function mediaParts(block: Block, where: string): (IrText | IrImage | IrDocument)[] | undefined {
  switch (block.type) {
    case "text":
      return [{ type: "text", text: stringOr(block.text), ...cacheOf(block) }];
    case "image": {
      const source = sourceOf(block.source);
      if (!source) throw convertError(`${where}.source`, "the image source type is unknown");
      return [{ type: "image", source, ...cacheOf(block) }];
    }
    case "document": {
      const source = sourceOf(block.source);
      if (!source) throw convertError(`${where}.source`, "the document source type is unknown");
      const title = stringOr(block.title);
      const document: IrDocument = {
        type: "document",
        source,
        ...(title ? { title } : {}),
        ...cacheOf(block),
      };
      // A `content` source may hold images beside its text: they follow the document.
      const images = fields(block.source).type === "content"
        ? listOf(fields(block.source).content).map(fields).filter((b) => b.type === "image")
        : [];
      return [document, ...images.flatMap((image) => mediaParts(image, where) ?? [])];
    }
    case "search_result": {
      // A search result is text with its origin; every target reads it as such.
      const texts = listOf(block.content).map((b) => stringOr(fields(b).text));
      const head = [stringOr(block.title), stringOr(block.source)].filter(Boolean).join("\n");
      const text = [head, ...texts].filter(Boolean).join("\n\n");
      return [{ type: "text", text, ...cacheOf(block) }];
    }
  }
  return undefined;
}

/** A `tool_result`: its content is a string or text, image, document blocks. */
function toolResultOf(block: Block, where: string, dropped: string[]): IrToolResult {
  const content = typeof block.content === "string"
    ? (block.content ? [{ type: "text" as const, text: block.content }] : [])
    : listOf(block.content).flatMap((value, k) => {
      const item = fields(value);
      const path = `${where}.content[${k}]`;
      const parts = mediaParts(item, path);
      if (parts) return parts;
      // Tool-search references and browser snapshots: what the server keeps, not content.
      if (item.type === "tool_reference" || item.type === "browser_state") {
        dropped.push(`${path} (${item.type})`);
        return [];
      }
      throw convertError(path, `a ${describe(item)} block cannot be a tool result`);
    });
  return {
    type: "tool_result",
    callId: stringOr(block.tool_use_id),
    content,
    ...(block.is_error === true ? { isError: true } : {}),
    ...cacheOf(block),
  };
}

function assistantParts(content: unknown, path: string, dropped: string[]): IrAssistantPart[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return listOf(content).flatMap((value, j): IrAssistantPart[] => {
    const block = fields(value);
    const where = `${path}.content[${j}]`;
    const part = assistantPartOf(block);
    if (part) return [part];
    switch (block.type) {
      case "compaction": {
        // A summary of the earlier conversation (beta context management): keep its text;
        // its encrypted form means something only to Anthropic.
        dropped.push(`${where} (compaction)`);
        const summary = stringOr(block.content);
        return summary ? [{ type: "text", text: summary }] : [];
      }
    }
    if (isServerBlock(block)) {
      dropped.push(`${where} (${block.type})`);
      return [];
    }
    throw convertError(where, `a ${describe(block)} block cannot be translated`);
  });
}

function isServerBlock(block: Block): boolean {
  return typeof block.type === "string" && SERVER_BLOCK.test(block.type);
}

function describe(block: Block): string {
  return typeof block.type === "string" ? `\`${block.type}\`` : "typeless";
}
