/**
 * What translation asks of a protocol (its codec): a decoder and an encoder for each
 * direction (requests, whole responses, streams), all pure and created per request, and
 * how a request goes to a channel of its own protocol (passed through, with its usage and
 * produced text read as it passes). Any entry protocol reaches any channel protocol by
 * decoding one side into the internal representation (ir.ts) and encoding the other side
 * from it. Each protocol implements it in its folder (src/protocols/<p>/), as part of its
 * `Protocol`; nothing here knows one.
 */
import type { GatewayError } from "../errors.ts";
import type { Usage } from "../usage.ts";
import type { IrEvent, IrRequest, IrResponse } from "./ir.ts";
import type { SseEvent } from "./sse.ts";

/**
 * What a request's path says of it: the model and whether it streams, for a protocol whose
 * path names them (Gemini's `/models/{model}:streamGenerateContent`). A protocol whose body
 * names them reads neither.
 */
export interface RequestRoute {
  readonly model?: string;
  readonly stream?: boolean;
}

/** A client's request as translation reads it: the body as parsed, its model and streaming. */
export interface ClientRequest {
  model: string;
  stream: boolean;
  /** The client's body exactly as parsed from JSON (not a validated copy). */
  body: Record<string, unknown>;
}

/** Watches a stream's events and keeps the usage the upstream reported in them. */
export interface UsageTap {
  /** Looks at one event; never throws, whatever the event holds. */
  observe(event: SseEvent): void;
  /** The usage reported so far, or undefined when the stream reported none. */
  usage(): Usage | undefined;
}

/** An error an upstream reported inside a stream (or as its first event). */
export interface StreamErrorReport {
  /** The HTTP status the error stands for, when the protocol says (529 for overloaded). */
  status: number;
  /** The upstream's error type or code, e.g. `overloaded_error`, `server_error`. */
  type?: string;
  message?: string;
}

/** What a request encoder needs beside the request. */
export interface RequestEncodeContext {
  /** The model id the channel knows (after `model_map`). */
  model: string;
  /** Output cap for a target that requires one (messages) when the client set none. */
  defaultMaxOutputTokens: number;
  /** Notes something dropped because the target has no equivalent (logged at debug). */
  drop(what: string, why: string): void;
  /**
   * The gateway's name of the request's conversation (a hash: routing/conversation.ts),
   * sent as a responses upstream's `prompt_cache_key` when the client gave none.
   */
  conversation?: string;
}

/** What a response or stream encoder needs beside the answer. */
export interface ResponseEncodeContext {
  /** The model id the client asked for: answers name it, not the upstream's id. */
  model: string;
  /** The client's request, decoded: its tools tell a custom tool from a function. */
  request: IrRequest;
  /** The client's body as sent, for parameters a protocol echoes (responses). */
  body: Record<string, unknown>;
  /** A fresh id with the given prefix (`msg_`, `resp_`, `call_`); tests pass a counter. */
  newId(prefix: string): string;
  /** Clock in milliseconds. */
  now(): number;
  /** The client's request id, carried by error events. */
  requestId: string;
  /**
   * Input tokens to announce before the upstream reports any: messages clients read
   * them from `message_start`, which goes out before a chat or responses upstream
   * says how many there were.
   */
  inputTokensHint: number;
}

/** Turns one upstream stream into IR events (see IrEvent for the grammar it guarantees). */
export interface StreamDecoder {
  /** The IR events of one upstream event (none, one or several). */
  decode(event: SseEvent): IrEvent[];
  /** The IR events owed when the upstream stream ended: parts left open are closed. */
  end(): IrEvent[];
}

/** Turns IR events into one client stream, keeping the state a strict client needs. */
export interface StreamEncoder {
  /** The client events of one IR event; `error` events are handled by `error`. */
  encode(event: IrEvent): SseEvent[];
  /** The client's closing events after the upstream ended (usage, stop, `[DONE]`). */
  end(): SseEvent[];
  /** The client's events reporting a failure after output started; the stream then closes. */
  error(error: GatewayError): SseEvent[];
}

/**
 * A request relayed to a channel of its own protocol: the client's body with only what
 * must change changed (its model, mapped; whatever the gateway must ask for itself), and
 * the upstream's answer as it came, but for what the gateway asked for and the client did not.
 */
export interface Passthrough {
  /** The upstream body for a channel that knows the model as `upstreamModel`. */
  body(upstreamModel: string): Record<string, unknown>;
  /**
   * That body as the client's own bytes (`raw`) with only what must change changed, when it
   * can be (they go upstream neither serialized again nor encoded: a coding agent's prompt
   * is large); undefined when the body must be written anew.
   */
  bytes(upstreamModel: string, raw: Uint8Array): Uint8Array | undefined;
  /** Whether an upstream stream event is kept from the client (one the client did not ask for). */
  hides(event: SseEvent): boolean;
}

/** One protocol as translation sees it; the protocol's module (`Protocol`) is one. */
export interface Codec {
  /** Prefix of the protocol's response ids: `chatcmpl-`, `resp_`, `msg_` (none for Gemini). */
  readonly idPrefix: string;
  /**
   * The status of an upstream overloaded on every channel, for this protocol's clients:
   * 529 is the messages protocol's own; the others' clients know overload as 503.
   */
  readonly overloadedStatus: 503 | 529;
  /**
   * A client body (already validated by the protocol's `parseRequest`) as IR; `route` is
   * what its path said. Throws a 400 `convert_request_failed` naming a field that cannot be
   * represented.
   */
  decodeRequest(body: Record<string, unknown>, route?: RequestRoute): IrRequest;
  /**
   * The upstream body for a request; throws a 400 `convert_request_failed` naming a
   * field this protocol cannot honour when it would change the answer.
   */
  encodeRequest(request: IrRequest, context: RequestEncodeContext): Record<string, unknown>;
  /** An upstream's whole response body as IR (tolerant of missing fields). */
  decodeResponse(json: unknown): IrResponse;
  /** The client's whole response body. */
  encodeResponse(response: IrResponse, context: ResponseEncodeContext): Record<string, unknown>;
  createStreamDecoder(): StreamDecoder;
  createStreamEncoder(context: ResponseEncodeContext): StreamEncoder;
  /** How `request` goes to a channel of this protocol, untranslated. */
  passthrough(request: ClientRequest): Passthrough;
  /** The usage of a whole response body, if it reports one. */
  usageFromResponse(json: unknown): Usage | undefined;
  /** A tap reading the usage reported in a stream. */
  createUsageTap(): UsageTap;
  /** Text an upstream produced in a whole response (text, tool arguments, reasoning). */
  responseText(json: unknown): string;
  /** Text an upstream produced in one stream event. */
  eventText(event: SseEvent): string;
  /** The error an upstream's stream event reports, or undefined for any other event. */
  streamError(event: SseEvent): StreamErrorReport | undefined;
  /** The events that report `error` to a client mid-stream, after which the stream closes. */
  streamErrorEvents(error: GatewayError, requestId: string): SseEvent[];
}

/**
 * The part of a codec each protocol's codec.ts holds (requests, answers and streams to and
 * from the IR); its `Protocol` adds the rest.
 */
export type IrCodec = Pick<
  Codec,
  | "decodeRequest"
  | "encodeRequest"
  | "decodeResponse"
  | "encodeResponse"
  | "createStreamDecoder"
  | "createStreamEncoder"
>;
