/**
 * The three protocols as the bench's clients speak them: entry path, auth header,
 * request body, the event that ends a complete stream and the pattern of one relayed
 * content chunk (the fake's chunks carry the text `tok<i> `).
 */

/** tollgate's wire protocols (docs/translation.md). */
export type Protocol = "chat" | "responses" | "messages";

/** Every protocol, in the order the bench measures and prints them. */
export const PROTOCOLS: readonly Protocol[] = ["chat", "responses", "messages"];

/** Where a client of one protocol sends, what it sends and how it knows a stream is whole. */
interface ClientWire {
  path: string;
  /** Text only the last event of a complete stream holds. */
  endMarker: string;
  /** Matches each content chunk of the fake's answer as this protocol streams it. */
  chunk: RegExp;
  /** The request body (the prompt is the same in all three). */
  body(model: string, stream: boolean): Record<string, unknown>;
  /** The auth header with `key`. */
  auth(key: string): Record<string, string>;
}

const PROMPT = "Say hello to the bench.";
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const streamFlag = (stream: boolean) => (stream ? { stream: true } : {});

/** Request shapes per the API references of docs/translation.md. */
const WIRES: Record<Protocol, ClientWire> = {
  chat: {
    path: "/v1/chat/completions",
    endMarker: "[DONE]",
    chunk: /"content":"tok\d+ "/g,
    body: (model, stream) => ({
      model,
      messages: [{ role: "user", content: PROMPT }],
      max_tokens: 256,
      ...streamFlag(stream),
    }),
    auth: bearer,
  },
  responses: {
    path: "/v1/responses",
    endMarker: '"response.completed"',
    chunk: /"delta":"tok\d+ "/g,
    body: (model, stream) => ({
      model,
      input: [{ role: "user", content: PROMPT }],
      max_output_tokens: 256,
      ...streamFlag(stream),
    }),
    auth: bearer,
  },
  messages: {
    path: "/v1/messages",
    endMarker: '"message_stop"',
    chunk: /"text":"tok\d+ "/g,
    body: (model, stream) => ({
      model,
      max_tokens: 256,
      messages: [{ role: "user", content: PROMPT }],
      ...streamFlag(stream),
    }),
    auth: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
  },
};

/** A ready client request. */
export interface ClientRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The request a `protocol` client sends to `baseUrl` for `model` (with `key`, if any). */
export function clientRequest(
  protocol: Protocol,
  target: { baseUrl: string; model: string; key?: string },
  stream: boolean,
): ClientRequest {
  const wire = WIRES[protocol];
  return {
    url: `${target.baseUrl}${wire.path}`,
    headers: { "content-type": "application/json", ...(target.key ? wire.auth(target.key) : {}) },
    body: JSON.stringify(wire.body(target.model, stream)),
  };
}

/** The path of `protocol`'s entry point (a client's and an upstream's alike). */
export function entryPath(protocol: Protocol): string {
  return WIRES[protocol].path;
}

/** The text that ends a complete stream of `protocol`. */
export function endMarker(protocol: Protocol): string {
  return WIRES[protocol].endMarker;
}

/** How many of the fake's content chunks a `protocol` stream body relayed. */
export function relayedChunks(protocol: Protocol, text: string): number {
  return text.match(WIRES[protocol].chunk)?.length ?? 0;
}

/** The model tollgate's bench config serves through a channel of `protocol` only. */
export function protocolModel(protocol: Protocol): string {
  return `bench-${protocol}`;
}
