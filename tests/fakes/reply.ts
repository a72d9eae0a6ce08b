/**
 * What a fake upstream answers, independent of wire format: the text, reasoning and tool
 * calls of one reply, its usage, and the SSE framing. Written for the fakes alone (no
 * tollgate code), so a relay is checked against the providers' formats, not against the
 * code that produced them.
 */
import { countTokens } from "gpt-tokenizer";

/** One tool call the fake makes. */
export interface FakeToolCall {
  id: string;
  name: string;
  /** JSON text. */
  arguments: string;
}

/** The content of one reply. */
export interface FakeReply {
  text: string;
  /** Reasoning before the text; `opaque` is the signature / encrypted_content. */
  reasoning?: { text: string; opaque?: string };
  toolCalls?: FakeToolCall[];
  /** Defaults to `tool_calls` when there are calls, else `stop`. */
  finish?: "stop" | "length" | "tool_calls" | "content_filter";
}

/** Token counts in OpenAI's convention: `input` includes cache reads and writes. */
export interface FakeUsage {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
  reasoning: number;
}

/** What every wire writer needs besides the reply. */
export interface WireContext {
  model: string;
  /** Provider-style id of the reply (`chatcmpl-…`, `resp_…`, `msg_…`). */
  id: string;
  /** Unix seconds. */
  created: number;
  /** Undefined: report no usage. */
  usage?: FakeUsage;
  /** The client's request body. */
  request: Record<string, unknown>;
}

/** A reply's finish reason, resolved. */
export function finishOf(reply: FakeReply): NonNullable<FakeReply["finish"]> {
  return reply.finish ?? (reply.toolCalls?.length ? "tool_calls" : "stop");
}

/** Usage of a reply to a request, with the cache counts a behaviour asks for. */
export function usageOf(
  request: Record<string, unknown>,
  reply: FakeReply,
  cache: { cached?: number; cacheWrite?: number },
): FakeUsage {
  const input = countTokens(requestText(request));
  const reasoning = reply.reasoning ? countTokens(reply.reasoning.text) : 0;
  const calls = (reply.toolCalls ?? []).map((call) => call.name + call.arguments).join("");
  const cached = Math.min(cache.cached ?? 0, input);
  return {
    input,
    output: countTokens(reply.text) + reasoning + (calls ? countTokens(calls) : 0),
    cached,
    cacheWrite: Math.min(cache.cacheWrite ?? 0, input - cached),
    reasoning,
  };
}

const TEXT_KEYS = [
  "system",
  "instructions",
  "messages",
  "input",
  "content",
  "text",
  "output",
  // Gemini's
  "systemInstruction",
  "contents",
  "parts",
];

/** Every prompt string of a request of any of the protocols, joined by newlines. */
export function requestText(request: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (value: unknown, depth: number) => {
    if (depth > 8) return;
    if (typeof value === "string") parts.push(value);
    else if (Array.isArray(value)) { for (const item of value) walk(item, depth + 1); }
    else if (value && typeof value === "object") {
      const object = value as Record<string, unknown>;
      for (const key of TEXT_KEYS) walk(object[key], depth + 1);
    }
  };
  walk(request, 0);
  return parts.join("\n");
}

/** The text of the last user turn of a request of any protocol ("" when there is none). */
export function lastUserText(request: Record<string, unknown>): string {
  if (typeof request.input === "string") return request.input;
  if (Array.isArray(request.contents)) return lastGeminiUserText(request.contents);
  const turns = request.messages ?? request.input;
  if (!Array.isArray(turns)) return "";
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as Record<string, unknown> | null;
    if (turn?.role === "user") return turnText(turn.content, " ");
  }
  return "";
}

/** The text of Gemini's last user content (`role` "user" or none) that holds text. */
function lastGeminiUserText(contents: unknown[]): string {
  for (let i = contents.length - 1; i >= 0; i--) {
    const content = contents[i] as Record<string, unknown> | null;
    if (content?.role !== undefined && content?.role !== "user") continue;
    const text = turnText(content?.parts, " ");
    if (text) return text;
  }
  return "";
}

/** The text of a turn's content: a string, or its parts' texts joined by `separator`. */
export function turnText(content: unknown, separator: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (part as { text?: unknown }).text)
    .filter((text): text is string => typeof text === "string")
    .join(separator);
}

/** Pieces of text as a provider streams them: a word (with its trailing space) each. */
export function pieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * What a stream frame is, so faults can be placed without counting frames per protocol:
 * `preamble` before the first content (role chunk, `response.created`, `message_start`,
 * block starts, pings), `content` a text, reasoning or tool-call delta (or the start of a
 * tool call), `structure` a frame between contents (block stops, `*.done`), `closing` the
 * terminal frames (chat's finish chunk, usage chunk and `[DONE]`; `response.completed`;
 * `message_delta` and `message_stop`).
 */
export type FrameKind = "preamble" | "content" | "structure" | "closing";

/** One SSE frame of a stream, classified. */
export interface WireFrame {
  kind: FrameKind;
  text: string;
}

/**
 * Collects a stream's frames: `add` takes `content`, `closing` or nothing, and a frame
 * without a kind is `preamble` until the first content, `structure` after it.
 */
export function frameList() {
  const frames: WireFrame[] = [];
  let started = false;
  return {
    frames,
    add(text: string, kind?: "content" | "closing") {
      if (kind === "content") started = true;
      frames.push({ text, kind: kind ?? (started ? "structure" : "preamble") });
    },
  };
}

/** One SSE frame; `event` omitted for chat completions. */
export function frame(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

/** A random-looking id of a provider's shape. */
export function providerId(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}
