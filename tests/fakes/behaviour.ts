/**
 * How a fake upstream behaves, request by request: normal service, an HTTP error in the
 * provider's shape, a connection closed unanswered, or a stream that goes wrong at a
 * chosen point. Named faults to build these are in ./faults.ts.
 */
import type { FakeReply } from "./reply.ts";

/** The three wire protocols a fake speaks. */
export type WireProtocol = "chat" | "responses" | "messages";

/** An error the fake answers with, in the shape of the path's protocol. */
export interface FakeError {
  status: number;
  /** Defaults to the provider's words for the status (./provider_errors.ts). */
  message?: string;
  /** The error `type`; defaults to the provider's type for the status. */
  type?: string;
  /** OpenAI's `code` (default `null`; 429 `rate_limit_exceeded`). */
  code?: string | null;
  /** OpenAI's `param` (default `null`). */
  param?: string | null;
  /** Answer with it for the next N requests that reach it, then behave normally; omitted: always. */
  times?: number;
  headers?: Record<string, string>;
  /** Bodies sent verbatim instead, per protocol (Anthropic's `request_id` is filled in). */
  body?: Partial<Record<WireProtocol | "gemini", Record<string, unknown>>>;
}

/**
 * A place in a stream: `"preamble"` (= 0) after the preamble, before any content; N after
 * the Nth content frame (text, reasoning or tool-call delta); `"content"` after every
 * content and structure frame, just before the closing frames.
 */
export type StreamPoint = "preamble" | "content" | number;

/** A stream fault's place. */
export interface AtPoint {
  after: StreamPoint;
}

/** How the fake behaves; `{}` is normal service. */
export interface Behaviour {
  error?: FakeError;
  /** Close the connection once the request was read, without a byte of answer. */
  reset?: boolean;
  /** Report no usage at all, in responses and streams. */
  omitUsage?: boolean;
  /** Cache reads to report (capped at the input tokens). */
  cachedTokens?: number;
  /** Cache writes to report (capped at the input tokens left after cache reads). */
  cacheWriteTokens?: number;
  /** Streams: abort the connection after sending this many events. */
  breakAfter?: number;
  /** Wait for this before answering: before stream event number `gateAfter`, or before a
   * non-stream response. close() releases it. */
  gate?: Promise<void>;
  /** Streams: how many events to send before waiting on `gate` (default 0). */
  gateAfter?: number;
  /** Never send headers: hold every request until close(). */
  hang?: boolean;
  /** Parts of the reply to use instead of the echo of the last user text. */
  reply?: Partial<FakeReply>;
  /** Replies for successive POSTs, in order; the last one repeats. Wins over `reply`. */
  replies?: FakeReply[];
  /** The reply to each request, decided from its body. Wins over `replies` and `reply`. */
  respond?: (body: Record<string, unknown>) => FakeReply;
  /**
   * The whole answer's text, honouring a prefill: a request whose trailing assistant turn
   * starts it gets only the rest (./prefill.ts). Wins over the reply's text.
   */
  answer?: string;
  /** Refuse (400) a request whose last turn is the assistant's, as a model without prefill. */
  refusePrefill?: boolean;
  /** Refuse (400 `context_length_exceeded`) a prompt of more tokens than this. */
  contextWindow?: number;
  /** Streams: after this many events send the protocol's error event and end. */
  midStreamError?: { afterEvents: number; message?: string };
  /** Streams: abort the connection at `after` (chunked body left unterminated). Whole
   * answers: after half the body. */
  cut?: AtPoint;
  /** Streams: send nothing after `after` until `gate` opens (default: `release()` or
   * close()). Whole answers: half the body, then the wait. */
  stall?: AtPoint & { gate?: Promise<void> };
  /**
   * Streams: at `after` (default the preamble) send the protocol's error event and end:
   * chat's `{"error":…}` data, responses' `error` (or `response.failed`), messages'
   * `error` (`overloaded_error` unless `type`). Whole answers are not affected.
   */
  streamError?: Partial<AtPoint> & {
    message?: string;
    type?: string;
    event?: "error" | "response.failed";
  };
  /**
   * At `after` send a frame whose data is the next content frame's JSON cut in half, then
   * the rest of the stream (`continue`) or a clean end (`end`). Whole answers: half the
   * body, properly ended.
   */
  malformed?: AtPoint & { then: "continue" | "end" };
  /** Streams: end cleanly at `after` (default `"content"`) without the closing frames.
   * Whole answers are not affected. */
  noTerminator?: Partial<AtPoint>;
  /**
   * Answer with this recorded transcript verbatim: `sse` to streams, `body` otherwise (an
   * object as JSON, bytes as they are).
   */
  transcript?: { body?: unknown; sse?: string };
}

/** Shorthands for a script step: `ok` is `{}`; the others as ./faults.ts `fault` says. */
export type FaultName = "ok" | "reset" | "hang" | "429" | "500" | "503" | "529";

/** One request's behaviour in a script. */
export type Step = Behaviour | FaultName;

/**
 * What `setBehaviour` takes: one behaviour for every request, a script (one step per
 * request in order, the last repeating) or `{ cycle }` (the steps over and over).
 */
export type Plan = Step | Step[] | { cycle: Step[] };
