/**
 * Prompt-cache breakpoints for a request translated to messages. Anthropic caches a
 * prompt only up to a block marked with `cache_control`, and a chat or responses client
 * has no way to mark one, so the encoder marks two: the last user message (the whole
 * conversation so far, which the next turn reads back through the cache's lookback) and
 * then the system prompt (shared by every conversation that starts with it).
 *
 * The rules followed (Anthropic "Prompt caching": "Explicit cache breakpoints", "What can
 * be cached", "Mixing different TTLs"):
 * - at most 4 breakpoints in a request, the client's own counted: none is added past that,
 *   and when one slot is left the user message gets it;
 * - the cache's order is tools, system, messages;
 * - a marker goes on a system text block, or on a user message's text, image, document or
 *   tool_result block; never on an empty text block, never on thinking;
 * - a 1-hour entry must come before any 5-minute one: nothing is added before a client's
 *   `ttl: "1h"` marker;
 * - a block the client marked is left as it is.
 * Minimum cacheable lengths are not checked: below them Anthropic just does not cache.
 */
import type { Block } from "./messages_encode.ts";

/** Anthropic's limit of `cache_control` breakpoints in one request. */
export const MAX_BREAKPOINTS = 4;

/** Block types of a user message that can carry a marker. */
const MARKABLE = new Set(["text", "image", "document", "tool_result"]);

/** A top-level block of the request, and how to put a marked copy in its place. */
interface Slot {
  block: Block;
  /** Where the block is: tools, system, or the index of its message. */
  owner: "tools" | "system" | number;
  place(marked: Block): void;
}

/** Adds breakpoints to a messages upstream body made by the encoder (in place), and returns it. */
export function addCacheBreakpoints(body: Record<string, unknown>): Record<string, unknown> {
  const slots = slotsOf(body);
  const markers = slots.flatMap((slot, position) => markersIn(slot.block, position));
  let free = MAX_BREAKPOINTS - markers.length;
  // A 5-minute marker must come after every 1-hour one.
  const lastLong = Math.max(-1, ...markers.filter((m) => m.ttl === "1h").map((m) => m.position));
  const lastUser = messagesOf(body).findLastIndex((message) => message.role === "user");
  const wanted = [
    slots.findLastIndex((slot) => slot.owner === lastUser && markable(slot.block)),
    slots.findLastIndex((slot) => slot.owner === "system" && nonEmptyText(slot.block)),
  ];
  for (const position of wanted) {
    const slot = slots[position];
    if (free <= 0) break;
    if (!slot || slot.block.cache_control !== undefined || position <= lastLong) continue;
    slot.place({ ...slot.block, cache_control: { type: "ephemeral" } });
    free--;
  }
  return body;
}

/** Every top-level block in the cache's order: tools, system, then the messages' content. */
function slotsOf(body: Record<string, unknown>): Slot[] {
  const listed = (blocks: Block[], owner: Slot["owner"]): Slot[] =>
    blocks.map((block, index) => ({ block, owner, place: (marked) => blocks[index] = marked }));
  const system: Slot[] = typeof body.system === "string"
    ? body.system === "" ? [] : [{
      block: { type: "text", text: body.system },
      owner: "system",
      place: (marked) => body.system = [marked],
    }]
    : listed(Array.isArray(body.system) ? body.system as Block[] : [], "system");
  return [
    ...listed(Array.isArray(body.tools) ? body.tools as Block[] : [], "tools"),
    ...system,
    ...messagesOf(body).flatMap((message, index) => listed(message.content, index)),
  ];
}

/** The markers of a block and of the blocks nested in its content (a tool result's). */
function markersIn(block: Block, position: number): { position: number; ttl: unknown }[] {
  const own = block.cache_control as Record<string, unknown> | undefined;
  const nested = Array.isArray(block.content) ? block.content as Block[] : [];
  return [
    ...(own ? [{ position, ttl: own.ttl }] : []),
    ...nested.flatMap((inner) => markersIn(inner, position)),
  ];
}

function markable(block: Block): boolean {
  return MARKABLE.has(block.type as string) && (block.type !== "text" || nonEmptyText(block));
}

function nonEmptyText(block: Block): boolean {
  return block.type === "text" && typeof block.text === "string" && block.text !== "";
}

/** The messages, each with its content as blocks (the encoder never writes a string). */
function messagesOf(body: Record<string, unknown>): { role: string; content: Block[] }[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return (messages as { role: string; content: unknown }[]).map((message) => ({
    role: message.role,
    content: Array.isArray(message.content) ? message.content : [],
  }));
}
