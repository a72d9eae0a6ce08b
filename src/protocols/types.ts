/**
 * The shared vocabulary of the protocol modules: token usage, usage taps, parsed entry
 * requests and text replies. A leaf module: it imports nothing but types.
 */
import type { EntryProtocol } from "../config/schema.ts";
import type { SseEvent } from "./sse.ts";

/**
 * Token usage of one request, in tollgate's vocabulary: `input_tokens` counts every prompt
 * token, cache reads and writes included (OpenAI's convention); `cached_tokens` are cache
 * reads and `cache_write_tokens` cache writes.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  /** Output tokens spent on reasoning, when the upstream reports them (not billed apart). */
  reasoning_tokens?: number;
}

/** Watches a stream's events and keeps the usage the upstream reported in them. */
export interface UsageTap {
  /** Looks at one event; never throws, whatever the event holds. */
  observe(event: SseEvent): void;
  /** The usage reported so far, or undefined when the stream reported none. */
  usage(): Usage | undefined;
}

/** What the gateway reads from an entry-point request, beside the body it relays. */
export interface EntryRequest {
  protocol: EntryProtocol;
  model: string;
  stream: boolean;
  /** The client's cap on output tokens, when it sets one. */
  maxOutputTokens?: number;
  /** The client's body exactly as parsed from JSON (not a validated copy). */
  body: Record<string, unknown>;
}

/** The text found in a request's prompt. */
export interface PromptText {
  /** Every text of the prompt in order: system, instructions, messages, tool results. */
  texts: string[];
  /** The text of the last user message (its text parts joined by newlines), or "". */
  lastUserText: string;
}

/** A finished assistant text reply in protocol-neutral terms (the echo channel's answer). */
export interface TextReply {
  /** The response id in the protocol's own style. */
  id: string;
  model: string;
  /** Unix time in seconds. */
  created: number;
  /** The reply text in stream pieces; joined they are the whole text. */
  deltas: string[];
  /** `length` when the output token cap cut the reply short. */
  finish: "stop" | "length";
  /** Omitted: the reply reports no usage at all. */
  usage?: Usage;
}

/** An error an upstream reported inside a stream (or as its first event). */
export interface StreamErrorReport {
  /** The HTTP status the error stands for, when the protocol says (529 for overloaded). */
  status: number;
  /** The upstream's error type or code, e.g. `overloaded_error`, `server_error`. */
  type?: string;
  message?: string;
}
