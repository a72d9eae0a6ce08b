/**
 * The entry points as doctor probes them: path, a minimal request body, the headers of each
 * way to send the key, what a whole answer looks like, and the event that ends a stream.
 * Event names follow the OpenAI chat-completions and responses streaming references,
 * Anthropic's messages streaming reference and the Gemini API's `streamGenerateContent`
 * (its last chunk carries the candidate's `finishReason`).
 */
import type { SseEvent } from "../translate/sse.ts";

/** One of the POST entry points. */
export type EntryPoint = "chat" | "responses" | "messages" | "gemini";

/** How the key is sent: `Authorization: Bearer`, `x-api-key` or (Google's) `x-goog-api-key`. */
export type Auth = "bearer" | "x-api-key" | "x-goog-api-key";

/** The entry points in the order they are probed and reported. */
export const ENTRY_POINTS: readonly EntryPoint[] = ["chat", "responses", "messages", "gemini"];

// Small enough to cost next to nothing; 16 is the least the responses API accepts.
const MAX_TOKENS = 16;
const PROMPT = "Reply with the word ok.";

/** The version header value Anthropic's clients send; some gateways require one. */
export const ANTHROPIC_VERSION = "2023-06-01";

/** What doctor knows about one entry point. */
export interface EntryPointShape {
  /** Its path as people read it (Gemini's with `{model}` in it). */
  path: string;
  /** The path (and query) a request for `model` goes to, when the path names the model. */
  urlPath?(model: string, stream: boolean): string;
  /** The ways clients send the key here (spec: Authentication). */
  auths: readonly Auth[];
  /** A minimal request for `model`. */
  body(model: string, stream: boolean): Record<string, unknown>;
  /** Whether a 2xx JSON body is this protocol's whole answer. */
  isAnswer(body: unknown): boolean;
  /** The event that ends a complete stream, as people know it. */
  finalEvent: string;
  /** Whether `event` is that final event. */
  isFinal(event: SseEvent): boolean;
  /** Whether `event` reports an error instead of output. */
  isError(event: SseEvent): boolean;
}

/** Each entry point's shape. */
export const ENTRY_POINT_SHAPES: Readonly<Record<EntryPoint, EntryPointShape>> = {
  chat: {
    path: "/v1/chat/completions",
    auths: ["bearer"],
    body: (model, stream) => ({
      model,
      messages: [{ role: "user", content: PROMPT }],
      max_tokens: MAX_TOKENS,
      ...(stream ? { stream: true } : {}),
    }),
    isAnswer: (body) => Array.isArray(field(body, "choices")),
    finalEvent: "[DONE]",
    isFinal: (event) => event.data.trim() === "[DONE]",
    isError: (event) => field(parseData(event), "error") != null,
  },
  responses: {
    path: "/v1/responses",
    auths: ["bearer"],
    body: (model, stream) => ({
      model,
      input: PROMPT,
      max_output_tokens: MAX_TOKENS,
      ...(stream ? { stream: true } : {}),
    }),
    isAnswer: (body) =>
      field(body, "object") === "response" || Array.isArray(field(body, "output")),
    finalEvent: "response.completed",
    // An answer cut short by max_output_tokens ends with response.incomplete: still a whole stream.
    isFinal: (event) => ["response.completed", "response.incomplete"].includes(eventType(event)),
    isError: (event) => ["error", "response.failed"].includes(eventType(event)),
  },
  messages: {
    path: "/v1/messages",
    auths: ["x-api-key", "bearer"],
    body: (model, stream) => ({
      model,
      max_tokens: MAX_TOKENS,
      messages: [{ role: "user", content: PROMPT }],
      ...(stream ? { stream: true } : {}),
    }),
    isAnswer: (body) => field(body, "type") === "message" || Array.isArray(field(body, "content")),
    finalEvent: "message_stop",
    isFinal: (event) => eventType(event) === "message_stop",
    isError: (event) => eventType(event) === "error",
  },
  gemini: {
    path: "/v1beta/models/{model}:generateContent",
    urlPath: (model, stream) =>
      `/v1beta/models/${encodeURIComponent(model)}:${
        stream ? "streamGenerateContent?alt=sse" : "generateContent"
      }`,
    auths: ["x-goog-api-key"],
    body: (_model, _stream) => ({
      contents: [{ role: "user", parts: [{ text: PROMPT }] }],
      generationConfig: { maxOutputTokens: MAX_TOKENS },
    }),
    isAnswer: (body) => Array.isArray(field(body, "candidates")),
    finalEvent: "finishReason",
    isFinal: (event) => {
      const candidates = field(parseData(event), "candidates");
      return Array.isArray(candidates) && field(candidates[0], "finishReason") != null;
    },
    isError: (event) => field(parseData(event), "error") != null,
  },
};

/** The request headers of a probe: JSON, the key sent as `auth`, and the messages version. */
export function probeHeaders(
  entryPoint: EntryPoint | "models",
  auth: Auth,
  key: string,
): Record<string, string> {
  const headers: Record<string, string> = auth === "bearer"
    ? { authorization: `Bearer ${key}` }
    : auth === "x-goog-api-key"
    ? { "x-goog-api-key": key }
    : { "x-api-key": key };
  if (entryPoint !== "models") headers["content-type"] = "application/json";
  if (entryPoint === "messages") headers["anthropic-version"] = ANTHROPIC_VERSION;
  return headers;
}

/** An event's type: its `event:` name, else the `type` of its JSON data. */
function eventType(event: SseEvent): string {
  if (event.event !== undefined && event.event !== "message") return event.event;
  const type = field(parseData(event), "type");
  return typeof type === "string" ? type : "";
}

function parseData(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    return undefined;
  }
}

/** A property of a JSON value that may not be an object. */
export function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}
