/**
 * The name of the conversation a request belongs to, for cache affinity (design.md, HTTP
 * surface, "Cache affinity"). In order: the client's `prompt_cache_key`; a messages
 * client's `metadata.user_id` (Claude Code puts its session there) or the
 * `x-claude-code-session-id` header; the `previous_response_id` chain; else the key, the
 * model and the start of the prompt (the system prompt and the first user message),
 * which every turn of one conversation repeats.
 *
 * A name is a hash scoped to the API key: what a client puts in these fields never steers
 * another key's requests, and a name sent upstream (as `prompt_cache_key`) reveals no user
 * id. Pure: nothing here reads a clock, a store or the network.
 */
import { hash } from "node:crypto";
import { type Protocol, protocolOf } from "../protocols/index.ts";
import type { EntryRequest } from "../protocols/types.ts";

/** Characters of a client-given name that go into a name. */
export const NAME_SOURCE_CHARS = 1_024;
/** Characters of each end of a prompt's system text and of its first message that do. */
export const SAMPLE_CHARS = 256;

/** The header Claude Code sends its session id in. */
const SESSION_HEADER = "x-claude-code-session-id";

/**
 * The conversation name of a parsed request from the key `keyId`: 22 URL-safe characters
 * (132 bits of SHA-256). `chain` names the `previous_response_id` chain the request
 * continues, when stored responses know it (its first response's id): every turn after
 * the first then has one name. Without it `previous_response_id` itself names it.
 */
export function conversationName(
  request: EntryRequest,
  headers: Pick<Headers, "get">,
  keyId: string,
  chain?: string,
): string {
  const named = namedBy(request, headers, chain);
  const source = named
    ? `${named[0]}\u0000${named[1].slice(0, NAME_SOURCE_CHARS)}`
    : `prompt\u0000${request.model}\u0000${
      promptStart(protocolOf(request.protocol), request.body)
    }`;
  return hash("sha256", `${keyId}\u0000${source}`, "base64url").slice(0, 22);
}

/** The first name the client gave, as [kind, value]; undefined when it gave none. */
function namedBy(
  request: EntryRequest,
  headers: Pick<Headers, "get">,
  chain: string | undefined,
): [string, string] | undefined {
  const { body } = request;
  if (nonEmpty(body.prompt_cache_key)) return ["prompt_cache_key", body.prompt_cache_key];
  const user = protocolOf(request.protocol).conversation.session?.(body);
  if (nonEmpty(user)) return ["session", user];
  const session = headers.get(SESSION_HEADER);
  if (session) return ["session", session];
  const previous = chain || body.previous_response_id;
  if (nonEmpty(previous)) return ["previous", previous];
  return undefined;
}

/**
 * The start of the conversation: its system prompt (with any system turns before the
 * first user message) and its first user message, as text (so `input: "hi"` and an input
 * item saying "hi" start alike), as its protocol reads them. Every later turn starts with
 * the same. Each of the two goes in by its head and tail only (`SAMPLE_CHARS` each), since
 * hashing costs in proportion to the text and an agent's prompt runs to a hundred KB: a
 * long shared system prompt differs at its end (an agent's working directory, the date),
 * and a first message at either end (its boilerplate first, the task last, or the other way).
 */
export function promptStart(protocol: Protocol, body: Record<string, unknown>): string {
  const { leading, opening } = protocol.conversation.start(body);
  return `${sample(leading.join("\n"))}\u0000${sample(opening.join("\n"))}`;
}

/** A text's head and tail, `SAMPLE_CHARS` each; a short text whole. */
function sample(text: string): string {
  return text.length <= 2 * SAMPLE_CHARS
    ? text
    : text.slice(0, SAMPLE_CHARS) + text.slice(-SAMPLE_CHARS);
}

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}
