/**
 * The one interface each wire protocol implements (chat/, responses/, messages/), so
 * that nothing outside a protocol's folder switches on the protocol's name.
 */
import type { EntryProtocol } from "../config/schema.ts";
import type { GatewayError } from "../errors.ts";
import type { SseEvent } from "./sse.ts";
import type {
  EntryRequest,
  PromptText,
  StreamErrorReport,
  TextReply,
  Usage,
  UsageTap,
} from "./types.ts";

/** How a channel of a protocol is called: its paths, credentials and version headers. */
export interface UpstreamWire {
  /** Appended to a channel's `base_url`: `/chat/completions`, `/responses`, `/messages`. */
  readonly path: string;
  /** Appended for a token count, where the protocol has that endpoint. */
  readonly countTokensPath?: string;
  /** Where the channel key goes: `Authorization: Bearer`, or `x-api-key`. */
  readonly credential: "bearer" | "x-api-key";
  /** Client headers forwarded upstream: versions and opt-ins, never credentials. */
  readonly forwardedHeaders: readonly string[];
  /** A header sent when neither the client nor the channel sets it. */
  readonly defaultHeader?: { readonly name: string; readonly value: string };
  /** Whether the client's query goes along (the messages protocol's `?beta=true`). */
  readonly keepsQuery: boolean;
}

/** Everything tollgate knows of one wire protocol. */
export interface Protocol {
  readonly name: EntryProtocol;
  /** How its channels are called. */
  readonly upstream: UpstreamWire;
  /**
   * The status of an upstream overloaded on every channel, for this protocol's clients:
   * 529 is the messages protocol's own; OpenAI clients know overload as 503.
   */
  readonly overloadedStatus: 503 | 529;
  /** The fields naming a request's input and its cap on output (a context error's words). */
  readonly fields: { readonly input: string; readonly maxOutput: string };
  /**
   * Where a request shows its conversation (cache affinity): the field of its leading
   * (system) text, the field of its turns, and a session id its client puts in the body.
   */
  readonly conversation: {
    readonly leading?: string;
    readonly turns: string;
    session?(body: Record<string, unknown>): unknown;
  };
  /** Prefix of this protocol's response ids: `chatcmpl-`, `resp_` or `msg_`. */
  readonly idPrefix: string;
  /** SSE text that keeps a silent stream's connection alive: a comment, or messages' `ping`. */
  readonly keepalive: string;
  /** Validates an entry-point body; throws a 400 `invalid_request` naming the field at fault. */
  parseRequest(body: unknown): EntryRequest;
  /** The prompt's text, for the echo channel and token estimates. */
  promptText(body: Record<string, unknown>): PromptText;
  /** The usage of a whole response body, if it reports one. */
  usageFromResponse(json: unknown): Usage | undefined;
  /** A tap reading the usage reported in a stream. */
  createUsageTap(): UsageTap;
  /** Usage as this protocol's `usage` object. */
  encodeUsage(usage: Usage): Record<string, unknown>;
  /** Text an upstream produced in a whole response (text, tool arguments, reasoning). */
  responseText(json: unknown): string;
  /** Text an upstream produced in one stream event. */
  eventText(event: SseEvent): string;
  /** A text reply as a whole response body, shaped by the client's request. */
  buildReply(reply: TextReply, request: Record<string, unknown>): Record<string, unknown>;
  /** A text reply as a stream of events, shaped by the client's request. */
  buildReplyEvents(reply: TextReply, request: Record<string, unknown>): SseEvent[];
  /** The events that report `error` to a client mid-stream, after which the stream closes. */
  streamErrorEvents(error: GatewayError, requestId: string): SseEvent[];
  /** The error an upstream's stream event reports, or undefined for any other event. */
  streamError(event: SseEvent): StreamErrorReport | undefined;
  /**
   * Whether an upstream's stream event carries the answer's content (a text, reasoning or
   * tool-call delta): the first one commits the answer to the client (relay/commit.ts).
   */
  streamContent(event: SseEvent): boolean;
  /** Whether an upstream's stream event ends the answer properly (its terminal event). */
  streamEnded(event: SseEvent): boolean;
}
