/**
 * The one interface each wire protocol implements, whole, in a folder of its own (chat/,
 * responses/, messages/, gemini/): how its requests are validated and read, how its
 * channels are called, how its errors look, and its codec (translate/codec.ts). Nothing
 * outside a protocol's folder switches on the protocol's name; a new protocol is a new
 * folder registered in index.ts.
 */
import type { ErrorShape } from "../errors.ts";
import type { Codec, RequestRoute } from "../translate/codec.ts";
import type { SseEvent } from "../translate/sse.ts";
import type { EntryRequest, PromptText, ProtocolName, TextReply } from "./types.ts";

export type { ProtocolName } from "./types.ts";

/** How a channel of a protocol is called: its paths, credentials and version headers. */
export interface UpstreamWire {
  /**
   * Appended to a channel's `base_url` for an answer from `model` (the channel's id for it),
   * streamed or not: `/chat/completions`, `/responses`, `/messages`; Gemini's names both.
   */
  path(model: string, stream: boolean): string;
  /** Appended for a token count, where the protocol has that endpoint. */
  countTokensPath?(model: string): string;
  /** Appended for embeddings (`POST /v1/embeddings`), where the protocol's upstreams serve them. */
  readonly embeddingsPath?: string;
  /** Whether those paths name the model: a channel's requests then differ by model. */
  readonly modelInPath: boolean;
  /**
   * The header the channel key goes in, and the scheme before it: `Authorization: Bearer
   * <key>`, `x-api-key: <key>`, `x-goog-api-key: <key>`.
   */
  readonly credential: { readonly header: string; readonly scheme?: string };
  /** Client headers forwarded upstream: versions and opt-ins, never credentials. */
  readonly forwardedHeaders: readonly string[];
  /** A header sent when neither the client nor the channel sets it. */
  readonly defaultHeader?: { readonly name: string; readonly value: string };
  /** Whether the client's query goes along (the messages protocol's `?beta=true`). */
  readonly keepsQuery: boolean;
}

/** The start of a conversation, as cache affinity names it (routing/conversation.ts). */
export interface ConversationStart {
  /** Its leading texts: the system prompt, and any system turns before the first user turn. */
  leading: string[];
  /** The texts of its first user message. */
  opening: string[];
}

/** A protocol's token-count endpoint (messages' `count_tokens`, Gemini's `countTokens`). */
export interface TokenCountEndpoint {
  /** Validates a count's body; its model and the request body to count, or a 400. */
  parseRequest(
    body: unknown,
    route: RequestRoute,
  ): { model: string; body: Record<string, unknown> };
  /** The answer to a count of `tokens` input tokens. */
  answer(tokens: number): Record<string, unknown>;
}

/** Everything tollgate knows of one wire protocol: its codec, and the rest. */
export interface Protocol extends Codec {
  readonly name: ProtocolName;
  /** How its channels are called. */
  readonly upstream: UpstreamWire;
  /** How its clients are told of an error that ends a request before its answer began. */
  readonly errorShape: ErrorShape;
  /** The fields naming a request's input and its cap on output (a context error's words). */
  readonly fields: { readonly input: string; readonly maxOutput: string };
  /** Where a request shows its conversation (cache affinity). */
  readonly conversation: {
    /** The start of the conversation a request's body holds. */
    start(body: Record<string, unknown>): ConversationStart;
    /** A session id its client puts in the body (Claude Code's `metadata.user_id`). */
    session?(body: Record<string, unknown>): unknown;
  };
  /** SSE text that keeps a silent stream's connection alive: a comment, or messages' `ping`. */
  readonly keepalive: string;
  /**
   * Whether its channels may continue an answer given as a trailing assistant turn (a
   * stream's rescue), when the config says they do: never a responses upstream's.
   */
  readonly takesPrefill: boolean;
  /** Its token-count endpoint, if it has one. */
  readonly countTokens?: TokenCountEndpoint;
  /**
   * Validates an entry-point body (`route`: what its path said); throws a 400
   * `invalid_request` naming the field at fault.
   */
  parseRequest(body: unknown, route: RequestRoute): EntryRequest;
  /** The prompt's text, for the echo channel and token estimates. */
  promptText(body: Record<string, unknown>): PromptText;
  /** A text reply as a whole response body, shaped by the client's request. */
  buildReply(reply: TextReply, request: Record<string, unknown>): Record<string, unknown>;
  /** A text reply as a stream of events, shaped by the client's request. */
  buildReplyEvents(reply: TextReply, request: Record<string, unknown>): SseEvent[];
  /**
   * Whether an upstream's stream event carries the answer's content (a text, reasoning or
   * tool-call delta): the first one commits the answer to the client (relay/commit.ts).
   */
  streamContent(event: SseEvent): boolean;
  /** Whether an upstream's stream event ends the answer properly (its terminal event). */
  streamEnded(event: SseEvent): boolean;
}
