/**
 * The shared vocabulary of the protocol modules: parsed entry requests, prompt text and
 * text replies. A leaf module: it imports nothing but types.
 */
import type { ClientRequest } from "../translate/codec.ts";
import type { Usage } from "../usage.ts";

/** The protocols tollgate speaks (config's `entry_points` and channels name some of them). */
export type ProtocolName = "chat" | "responses" | "messages" | "gemini";

/** An entry point as the ledger and the request log name it: a protocol's, or embeddings. */
export type EntryName = ProtocolName | "embeddings";

/** What the gateway reads from an entry-point request, beside the body it relays. */
export interface EntryRequest extends ClientRequest {
  protocol: ProtocolName;
  /** The client's cap on output tokens, when it sets one. */
  maxOutputTokens?: number;
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
