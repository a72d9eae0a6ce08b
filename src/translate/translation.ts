/**
 * A translation turns one upstream response (whole or as a stream of events) into
 * the entry point's protocol. It is pure and created per request; the same-protocol
 * one passes everything through.
 */
import type { SseEvent } from "../protocols/sse.ts";

/** Turns upstream stream events into client stream events. */
export interface StreamTranslator {
  /** Client events for one upstream event (none, one or several). */
  event(event: SseEvent): SseEvent[];
}

/** The response side of a translation. */
export interface ResponseTranslation {
  /** The client body for an upstream non-stream body (given as text and parsed). */
  body(text: string, json: unknown): string;
  /** A translator for one stream. */
  stream(): StreamTranslator;
}
