/**
 * Reading an upstream's server-sent events: parsed once, by `eventsource-parser`.
 * Events come out in batches, one batch per network chunk, so a relay pays its
 * per-step costs (timers, promises, writes) once per chunk rather than once per event.
 */
import { createParser } from "eventsource-parser";
import type { SseBatch, SseEvent } from "../protocols/sse.ts";

/**
 * Yields the events of an SSE body chunk by chunk (never an empty batch), `data`
 * untouched, with the chunk's bytes when they hold exactly the batch's events. Stopping early (a `break`, a `return`, or the signal aborting) cancels
 * the body so the upstream connection is released; an abort throws the signal's reason.
 */
export async function* readSseBatches(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseBatch> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let batch: SseEvent[] = [];
  const parser = createParser({
    onEvent({ event, id, data }) {
      const sse: SseEvent = { data };
      if (event !== undefined) sse.event = event;
      if (id !== undefined) sse.id = id;
      batch.push(sse);
    },
  });
  // Cancelling settles a pending read at once, so an abort never waits on a silent upstream.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  let finished = false;
  // Whether the bytes read so far ended inside an event (its rest comes in a later chunk).
  let partial = false;
  try {
    while (true) {
      signal?.throwIfAborted();
      const result = await reader.read();
      signal?.throwIfAborted();
      if (result.done) {
        // An event the stream ended before finishing (no blank line) is dropped, as the spec says.
        finished = true;
        return;
      }
      const text = decoder.decode(result.value, { stream: true });
      parser.feed(text);
      const whole = !partial && endsEvent(text);
      partial = !endsEvent(text);
      if (batch.length > 0) {
        const events = batch;
        batch = [];
        yield whole ? { events, bytes: result.value } : { events };
      }
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Yields the events of an SSE body one at a time (see `readSseBatches`). */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent> {
  for await (const batch of readSseBatches(body, signal)) yield* batch.events;
}

/** Whether SSE text ends on an event boundary (a blank line, in any of the three line ends). */
function endsEvent(text: string): boolean {
  return text.endsWith("\n\n") || text.endsWith("\r\r") || text.endsWith("\r\n\r\n");
}
