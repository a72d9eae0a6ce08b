/**
 * Reading an upstream's server-sent events: parsed once, by `eventsource-parser`.
 * Events come out in batches, one batch per network chunk, so a relay pays its
 * per-step costs (timers, promises, writes) once per chunk rather than once per event.
 */
import { createParser } from "eventsource-parser";
import type { SseBatch, SseEvent } from "../protocols/sse.ts";
import { type BodyReader, streamReader } from "./response.ts";

/**
 * The events of an SSE body chunk by chunk (never an empty batch), `data` untouched,
 * with the chunk's bytes when they hold exactly the batch's events. Stopping early
 * (`return`, or the signal aborting) cancels the body so the upstream connection is
 * released; an abort throws the signal's reason. An iterator of its own rather than an
 * async generator: each read is one suspended call, which a relay holds for every open
 * stream.
 */
export function readSseBatches(
  body: BodyReader,
  signal?: AbortSignal,
): AsyncIterableIterator<SseBatch> {
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
  const onAbort = () => void body.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  let closed = false;
  const close = async (cancel: boolean) => {
    if (closed) return;
    closed = true;
    signal?.removeEventListener("abort", onAbort);
    if (cancel) await body.cancel().catch(() => {});
  };
  const finished: IteratorReturnResult<undefined> = { done: true, value: undefined };
  // Whether the bytes read so far ended inside an event (its rest comes in a later chunk).
  let partial = false;
  return {
    async next(): Promise<IteratorResult<SseBatch>> {
      if (closed) return finished;
      try {
        while (true) {
          signal?.throwIfAborted();
          const chunk = await body.read();
          signal?.throwIfAborted();
          if (!chunk) {
            // An event the stream ended before finishing (no blank line) is dropped, as the spec says.
            await close(false);
            return finished;
          }
          const text = decoder.decode(chunk, STREAMING);
          parser.feed(text);
          const whole = !partial && endsEvent(text);
          partial = !endsEvent(text);
          if (batch.length > 0) {
            const events = batch;
            batch = [];
            // The chunk is the reader's own: it goes on as it came when it holds just these events.
            return { done: false, value: whole ? { events, bytes: chunk } : { events } };
          }
        }
      } catch (error) {
        await close(true);
        throw error;
      }
    },
    async return(): Promise<IteratorResult<SseBatch>> {
      await close(true);
      return finished;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** Decoding a chunk that may end inside a character: the decoder keeps the rest. */
const STREAMING = { stream: true };

/** Yields the events of an SSE body (a web stream, or a BodyReader) one at a time. */
export async function* readSse(
  body: ReadableStream<Uint8Array> | BodyReader,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent> {
  const reader = body instanceof ReadableStream ? streamReader(body) : body;
  for await (const batch of readSseBatches(reader, signal)) yield* batch.events;
}

/** Whether SSE text ends on an event boundary (a blank line, in any of the three line ends). */
function endsEvent(text: string): boolean {
  return text.endsWith("\n\n") || text.endsWith("\r\r") || text.endsWith("\r\n\r\n");
}
