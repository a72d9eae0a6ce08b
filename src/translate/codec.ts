/**
 * The interface of a protocol's translation codec: a decoder and an encoder for each
 * direction (requests, whole responses, streams), all pure and created per request.
 * Any entry protocol reaches any channel protocol by decoding one side into the
 * internal representation (ir.ts) and encoding the other side from it.
 */
import type { GatewayError } from "../errors.ts";
import type { SseEvent } from "../protocols/sse.ts";
import type { IrEvent, IrRequest, IrResponse } from "./ir.ts";

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
  /** Chat clients: whether to send the usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
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

/** One protocol's side of translation. */
export interface Codec {
  /**
   * A client body (already validated by the protocol's `parseRequest`) as IR; throws a
   * 400 `convert_request_failed` naming a field that cannot be represented.
   */
  decodeRequest(body: Record<string, unknown>): IrRequest;
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
}
