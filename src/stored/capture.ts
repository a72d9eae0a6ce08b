/**
 * The response object a client got, found in what it was sent: the whole body, or the
 * `response.completed` (or `response.incomplete`) event of a stream, whichever protocol
 * the channel spoke (translated events and a responses channel's own look alike).
 */
import type { SseEvent } from "../translate/sse.ts";
import type { StreamConverter } from "../translate/translation.ts";

/** A response object (OpenAI `Response`), as far as keeping it reads it. */
export interface ResponseObject extends Record<string, unknown> {
  id: string;
  output: Record<string, unknown>[];
}

const DECODER = new TextDecoder();

/** A whole answer as the client got it: its body, and that body parsed (translation has both). */
export interface WholeBody {
  body: Uint8Array | string;
  json: unknown;
}

/** A body as text. */
export function bodyText(body: Uint8Array | string): string {
  return typeof body === "string" ? body : DECODER.decode(body);
}

/** Events that end a response's stream with the whole response object. */
const FINAL_EVENTS = new Set(["response.completed", "response.incomplete"]);

/**
 * `converter`, noting the final response object of the stream as it passes: the events
 * are handed on as they are (the same array, so an untouched batch still goes out as the
 * upstream's own bytes).
 */
export function watchFinalResponse(
  converter: StreamConverter,
  found: (response: ResponseObject) => void,
): StreamConverter {
  const look = (events: SseEvent[]) => {
    for (const event of events) {
      // Only the last events carry a whole response: others are not parsed.
      if (event.event !== undefined && !FINAL_EVENTS.has(event.event)) continue;
      if (!event.data.includes('"response.')) continue;
      try {
        const data = JSON.parse(event.data) as { type?: string; response?: unknown };
        const response = FINAL_EVENTS.has(data.type ?? "") ? responseOf(data.response) : undefined;
        if (response) found(response);
      } catch {
        // Not JSON: not the final event.
      }
    }
    return events;
  };
  return {
    ...converter,
    events: (batch) => look(converter.events(batch)),
    end: () => look(converter.end()),
  };
}

/** `value` as a response object, if it is one. */
export function responseOf(value: unknown): ResponseObject | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const response = value as Record<string, unknown>;
  return typeof response.id === "string" && Array.isArray(response.output)
    ? response as ResponseObject
    : undefined;
}
