/** Reading an upstream's server-sent events: parsed once, by `eventsource-parser`. */
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { SseEvent } from "../protocols/sse.ts";

/**
 * Yields the events of an SSE body as they arrive, `data` untouched. Stopping early (a
 * `break`, a `return`, or the signal aborting) cancels the body so the upstream
 * connection is released; an abort then throws the signal's reason.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent> {
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  // Cancelling settles a pending read at once, so an abort never waits on a silent upstream.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  let finished = false;
  try {
    while (true) {
      signal?.throwIfAborted();
      const result = await reader.read();
      signal?.throwIfAborted();
      if (result.done) {
        finished = true;
        return;
      }
      const { event, id, data } = result.value;
      const sse: SseEvent = { data };
      if (event !== undefined) sse.event = event;
      if (id !== undefined) sse.id = id;
      yield sse;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
