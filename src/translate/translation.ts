/**
 * The translation of one request toward one upstream protocol: what the relay asks of
 * it on every attempt (the upstream body) and on the attempt that answered (the client
 * body or stream, the usage, the produced text). The same protocol passes through
 * (passthrough.ts); another is translated through the IR (translated.ts); translator.ts
 * picks one.
 */
import type { GatewayError } from "../errors.ts";
import type { SseEvent } from "./sse.ts";
import type { ClientRequest, Codec, StreamEncoder } from "./codec.ts";
import type { Transcript } from "./transcript.ts";
import type { Usage } from "../usage.ts";

/**
 * A whole (non-stream) answer: the upstream's bytes, which a same-protocol client gets
 * as they came, their text, and the JSON parsed from it.
 */
export interface WholeAnswer {
  bytes: Uint8Array<ArrayBuffer>;
  text: string;
  json: unknown;
}

/** A whole upstream answer, converted for the client. */
export interface ConvertedResponse {
  /** The client's body: the upstream's own bytes (same protocol), or JSON text. */
  body: Uint8Array<ArrayBuffer> | string;
  /** The same body parsed (the upstream's JSON, or the object encoded), not to read it again. */
  json: unknown;
  /** The upstream's usage report, if it made one. */
  usage?: Usage;
  /** What the upstream produced, for estimating usage when it reported none. */
  outputText(): string;
}

/** Converts one upstream stream for the client, counting usage and produced text as it goes. */
export interface StreamConverter {
  /** The client's events for a batch of upstream events. */
  events(batch: SseEvent[]): SseEvent[];
  /** The client's closing events once the upstream stream ended. */
  end(): SseEvent[];
  /** The client's events for a failure after output started; the stream then closes. */
  error(error: GatewayError): SseEvent[];
  /** Set once the upstream reported an error mid-stream (its events were already sent). */
  failure(): GatewayError | undefined;
  /** The usage the upstream reported so far. */
  usage(): Usage | undefined;
  /** What the upstream produced so far. */
  outputText(): string;
  /**
   * Where the client's stream stands, to continue it after a cut (a rescue): the encoder
   * it goes on through, and what the client was sent. Undefined unless the stream was
   * tracked (`Translation.stream`).
   */
  resume(): { encoder: StreamEncoder; transcript: Transcript } | undefined;
}

/** One request's translation toward one upstream protocol. */
export interface Translation {
  /** The protocol the upstream speaks. */
  readonly upstream: Codec;
  /** The upstream body for a channel that knows the model as `upstreamModel`. */
  upstreamBody(upstreamModel: string): Record<string, unknown>;
  /**
   * That body as the client's own bytes (`raw`), when it can be: unchanged, or with only
   * its model replaced. They go upstream as they are, neither serialized again nor encoded
   * (a coding agent's prompt is large, and every copy of it costs); undefined when the body
   * must be written anew.
   */
  upstreamBytes(upstreamModel: string, raw: Uint8Array): Uint8Array | undefined;
  /** The client's answer; it names the model as the serving upstream knows it. */
  response(answer: WholeAnswer, upstreamModel: string): ConvertedResponse;
  /**
   * A converter for one upstream stream; `track` keeps the transcript a rescue needs
   * (StreamConverter.resume).
   */
  stream(upstreamModel: string, track: boolean): StreamConverter;
}

/** What translations of one request are built from. */
export interface TranslatorOptions {
  /** The client's protocol. */
  entry: Codec;
  request: ClientRequest;
  /**
   * The client's body as it sent it, when `request` carries another (a stored conversation
   * resolved): translated answers echo its parameters.
   */
  echo?: Record<string, unknown>;
  requestId: string;
  /** Output cap for a target that requires one (messages) when the client set none. */
  defaultMaxOutputTokens: number;
  /** Whether the model takes reasoning settings (config `reasoning = true`). */
  reasoning: boolean;
  /** Input tokens to announce before the upstream reports any (computed only if needed). */
  inputTokensHint(): number;
  now(): number;
  /** Reports something dropped in translation (for the debug log). */
  drop(what: string, why: string): void;
  /** Fresh ids for translated answers; ordered by time (src/ids.ts) unless a test passes a counter. */
  newId?(prefix: string): string;
  /** The request's conversation name (routing/conversation.ts), for upstream prompt caches. */
  conversation?: string;
  /** Redacts the config's secrets from an upstream's stream error (config/redact.ts). */
  redact?: (text: string) => string;
}
