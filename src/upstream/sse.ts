/**
 * Reading an upstream's server-sent events: parsed once, by `eventsource-parser`.
 * Events come out in batches, one batch per network chunk, so a relay pays its
 * per-step costs (timers, promises, writes) once per chunk rather than once per event.
 */
import { createParser } from "eventsource-parser";
import type { SseBatch, SseEvent } from "../protocols/sse.ts";

/** Bytes read per chunk: SSE events are small, and a long stream reads thousands of chunks. */
const READ_BUFFER_BYTES = 4_096;

/**
 * The events of an SSE body chunk by chunk (never an empty batch), `data` untouched,
 * with the chunk's bytes when they hold exactly the batch's events. Stopping early
 * (`return`, or the signal aborting) cancels the body so the upstream connection is
 * released; an abort throws the signal's reason. An iterator of its own rather than an
 * async generator: each read is one suspended call, not three (generator, reader, read),
 * which a relay holds for every open stream.
 */
export function readSseBatches(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncIterableIterator<SseBatch> {
  const reader = readerOf(body);
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
  let closed = false;
  // The lock is kept: nothing reads the body after this, and releasing it makes the runtime
  // build an Error (with its stack) for the reader's closed promise, ~2% of a stream's CPU.
  const close = async (cancel: boolean) => {
    if (closed) return;
    closed = true;
    signal?.removeEventListener("abort", onAbort);
    if (cancel) await reader.cancel().catch(() => {});
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
          const result = await reader.read();
          signal?.throwIfAborted();
          if (result.done) {
            // An event the stream ended before finishing (no blank line) is dropped, as the spec says.
            await close(false);
            return finished;
          }
          const chunk = result.value;
          reader.reuse(chunk);
          const text = decoder.decode(chunk, { stream: true });
          parser.feed(text);
          const whole = !partial && endsEvent(text);
          partial = !endsEvent(text);
          if (batch.length > 0) {
            const events = batch;
            batch = [];
            // The read buffer is reused: what goes on is a copy of just the bytes read.
            return { done: false, value: whole ? { events, bytes: chunk.slice() } : { events } };
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

/**
 * A reader of `body` that reads into one reused buffer when the body is a byte stream
 * (fetch bodies are): the default reader allocates 64 KiB per read, which thousands of
 * open streams turn into gigabytes of garbage between collections. `reuse` hands back
 * the view a read returned, whose buffer the next read fills.
 */
function readerOf(body: ReadableStream<Uint8Array>) {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    const reader = body.getReader();
    return {
      read: () => reader.read(),
      reuse: (_chunk: Uint8Array) => {},
      cancel: (reason?: unknown) => reader.cancel(reason),
    };
  }
  let buffer = new ArrayBuffer(READ_BUFFER_BYTES);
  return {
    read: () => byob.read(new Uint8Array(buffer)),
    reuse: (chunk: Uint8Array) => void (buffer = chunk.buffer as ArrayBuffer),
    cancel: (reason?: unknown) => byob.cancel(reason),
  };
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
