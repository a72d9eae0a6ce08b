/**
 * The name of the conversation a request belongs to, for cache affinity (design.md, HTTP
 * surface, "Cache affinity"). In order: the client's `prompt_cache_key`; a messages
 * client's `metadata.user_id` (Claude Code puts its session there) or the
 * `x-claude-code-session-id` header; the `previous_response_id` chain; else the key, the
 * model and the start of the prompt, which every turn of one conversation repeats.
 *
 * A name is a hash scoped to the API key: what a client puts in these fields never steers
 * another key's requests, and a name sent upstream (as `prompt_cache_key`) reveals no user
 * id. Pure: nothing here reads a clock, a store or the network.
 */
import { hash } from "node:crypto";
import type { EntryProtocol } from "../config/schema.ts";
import { asRecord } from "../protocols/json_read.ts";
import { collectText } from "../protocols/prompt_text.ts";

/** What a conversation's name is read from: the parsed request and who sent it. */
export interface ConversationCues {
  entry: EntryProtocol;
  /** The client's body as parsed. */
  body: Record<string, unknown>;
  headers: Headers;
  /** The id of the client's API key. */
  keyId: string;
  model: string;
  /**
   * The conversation of the response `previous_response_id` names, when stored responses
   * know it: the chain then keeps the name its first turn had.
   */
  previousConversation?: string;
}

/** Characters of a prompt's start (and of any client-given name) that go into a name. */
export const NAME_SOURCE_CHARS = 4_096;

/** The header Claude Code sends its session id in. */
const SESSION_HEADER = "x-claude-code-session-id";

/** Where each protocol keeps the prompt's leading text and its turns. */
const PROMPT_FIELDS: Record<EntryProtocol, { leading?: string; turns: string }> = {
  chat: { turns: "messages" },
  responses: { leading: "instructions", turns: "input" },
  messages: { leading: "system", turns: "messages" },
};

/** The request's conversation name: 22 URL-safe characters (132 bits of SHA-256). */
export function conversationName(cues: ConversationCues): string {
  if (cues.previousConversation) return cues.previousConversation;
  const [kind, value] = namedBy(cues) ??
    ["prompt", `${cues.model}\u0000${promptStart(cues.entry, cues.body)}`];
  const source = `${cues.keyId}\u0000${kind}\u0000${value.slice(0, NAME_SOURCE_CHARS)}`;
  return hash("sha256", source, "base64url").slice(0, 22);
}

/** The first name the client gave, as [kind, value]; undefined when it gave none. */
function namedBy(cues: ConversationCues): [string, string] | undefined {
  const { body } = cues;
  if (nonEmpty(body.prompt_cache_key)) return ["prompt_cache_key", body.prompt_cache_key];
  if (cues.entry === "messages") {
    const user = asRecord(body.metadata)?.user_id;
    if (nonEmpty(user)) return ["session", user];
  }
  const session = cues.headers.get(SESSION_HEADER);
  if (session) return ["session", session];
  if (nonEmpty(body.previous_response_id)) return ["previous", body.previous_response_id];
  return undefined;
}

/**
 * The start of the conversation: the system prompt and the turns up to the first user
 * message, as text (so `input: "hi"` and an input item saying "hi" start alike). Every
 * later turn of the conversation starts with the same, whatever follows.
 */
export function promptStart(entry: EntryProtocol, body: Record<string, unknown>): string {
  const fields = PROMPT_FIELDS[entry];
  const texts = fields.leading ? collectText(body[fields.leading]) : [];
  let length = texts.reduce((sum, text) => sum + text.length, 0);
  const turns = body[fields.turns];
  if (typeof turns === "string") texts.push(turns);
  else if (Array.isArray(turns)) {
    for (const turn of turns) {
      if (length >= NAME_SOURCE_CHARS) break;
      const record = asRecord(turn);
      if (!record) continue;
      const own = collectText(record.content);
      texts.push(...own);
      length += own.reduce((sum, text) => sum + text.length + 1, 0);
      if (record.role === "user") break;
    }
  }
  return texts.join("\n").slice(0, NAME_SOURCE_CHARS);
}

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
