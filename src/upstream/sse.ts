/**
 * Reading an upstream's server-sent events: parsed once, by `eventsource-parser`.
 * Events come out in batches, one batch per network chunk, so a relay pays its
 * per-step costs (timers, promises, writes) once per chunk rather than once per event.
 * A stream has no size limit (it is forwarded as it comes), but one event does: the
 * parser holds an event until its blank line, so an event that never ends would grow
 * without bound.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import type { SseEvent } from "../translate/sse.ts";
import { type BodyReader, streamReader } from "./response.ts";
import type { StopSignal } from "../clock/stop_signal.ts";
import { answerTooLarge, DEFAULT_ANSWER_LIMITS } from "./http1/limits.ts";

/**
 * The events of one network chunk of an upstream stream. `bytes` is the chunk itself
 * when it holds exactly those events (it began and ended on an event boundary), so a
 * relay that changes nothing forwards it as it came instead of encoding the events again.
 */
export interface SseBatch {
  events: SseEvent[];
  bytes?: Uint8Array;
  /** The stream's last batch: its body ended with it (nothing more will be read). */
  last?: boolean;
}

/**
 * The events of an SSE body chunk by chunk, `data` untouched, with the chunk's bytes when
 * they hold exactly the batch's events. A chunk of comments alone (an upstream's own
 * keep-alive while its model works) is an empty batch: the upstream is not silent, so
 * the idle timeout does not end the stream (the total timeout still does). Stopping early
 * (`return`, or the signal aborting) cancels the body so the upstream connection is
 * released; an abort throws the signal's reason. An iterator of its own rather than an
 * async generator: a relay holds a pending read for every open stream, and a generator
 * would hold a suspended call (and allocate one for every chunk). An event over
 * `maxEventBytes` (the body's own bound, else max_answer_bytes' default) fails the read.
 */
export function readSseBatches(
  body: BodyReader,
  signal?: StopSignal,
  maxEventBytes = body.maxAnswerBytes ?? DEFAULT_ANSWER_LIMITS.maxAnswerBytes,
): AsyncIterableIterator<SseBatch> {
  return new SseBatches(body, signal, maxEventBytes);
}

const FINISHED: IteratorReturnResult<undefined> = { done: true, value: undefined };

/** One body's parsing state, in fields: a relay holds it for every open stream. */
class SseBatches implements AsyncIterableIterator<SseBatch> {
  readonly #body: BodyReader;
  readonly #signal: StopSignal | undefined;
  readonly #decoder = new TextDecoder();
  readonly #parser: EventSourceParser;
  #batch: SseEvent[] = [];
  #closed = false;
  /** Whether the bytes read so far ended inside an event (its rest comes in a later chunk). */
  #partial = false;
  readonly #maxEventBytes: number;
  /** Bytes read since the last event's end: the event the parser holds. */
  #eventBytes = 0;

  constructor(body: BodyReader, signal: StopSignal | undefined, maxEventBytes: number) {
    this.#body = body;
    this.#signal = signal;
    this.#maxEventBytes = maxEventBytes;
    this.#parser = createParser({ onEvent: (event) => this.#onEvent(event) });
    // Cancelling settles a pending read at once, so an abort never waits on a silent upstream.
    signal?.addEventListener("abort", this, { once: true });
  }

  /**
   * The next batch. Not an async function: a relay has a read pending on every open
   * stream, and a `then` on a method bound once holds less than a suspended call.
   */
  next(): Promise<IteratorResult<SseBatch>> {
    if (this.#closed) return Promise.resolve(FINISHED);
    try {
      this.#signal?.throwIfAborted();
    } catch (error) {
      return this.#failed(error);
    }
    return this.#body.read().then(this.#parse, this.#failed);
  }

  /** The events of a chunk, or the next chunk's when it held no whole event. */
  readonly #parse = (
    chunk: Uint8Array | undefined,
  ): IteratorResult<SseBatch> | Promise<IteratorResult<SseBatch>> => {
    try {
      this.#signal?.throwIfAborted();
      if (!chunk) {
        // An event the stream ended before finishing (no blank line) is dropped, as the spec says.
        void this.#close(false);
        return FINISHED;
      }
      const text = this.#decoder.decode(chunk, STREAMING);
      const ends = endsEvent(text);
      if (ends) this.#eventBytes = 0;
      else {
        const tail = bytesAfterLastEvent(chunk);
        this.#eventBytes = tail < 0 ? this.#eventBytes + chunk.byteLength : tail;
        if (this.#eventBytes > this.#maxEventBytes) {
          throw answerTooLarge(this.#maxEventBytes, "stream has an event that");
        }
      }
      this.#parser.feed(text);
      const whole = !this.#partial && ends;
      this.#partial = !ends;
      if (this.#batch.length === 0) {
        // Only the middle of an event: nothing to tell yet. Only comments: activity.
        return ends && !this.#body.ended ? { done: false, value: { events: [] } } : this.next();
      }
      const events = this.#batch;
      this.#batch = [];
      // The chunk is the reader's own: it goes on as it came when it holds just these events.
      const batch: SseBatch = whole ? { events, bytes: chunk } : { events };
      // The body ended with this chunk (its end was in the same read): the relay can end
      // the client's body with these events, in one write, without reading again.
      if (this.#body.ended) {
        batch.last = true;
        void this.#close(false);
      }
      return { done: false, value: batch };
    } catch (error) {
      return this.#failed(error);
    }
  };

  /** A read failed: the body is cancelled (its connection released), then the error thrown. */
  readonly #failed = (error: unknown): Promise<never> =>
    this.#close(true).then(() => Promise.reject(error));

  async return(): Promise<IteratorResult<SseBatch>> {
    await this.#close(true);
    return FINISHED;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** The signal aborted. */
  handleEvent(): void {
    void this.#body.cancel(this.#signal?.reason).catch(() => {});
  }

  #onEvent({ event, id, data }: EventSourceMessage): void {
    const sse: SseEvent = { data };
    if (event !== undefined) sse.event = event;
    if (id !== undefined) sse.id = id;
    this.#batch.push(sse);
  }

  async #close(cancel: boolean): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#signal?.removeEventListener("abort", this);
    if (cancel) await this.#body.cancel().catch(() => {});
  }
}

/** Decoding a chunk that may end inside a character: the decoder keeps the rest. */
const STREAMING = { stream: true };

/** Yields the events of an SSE body (a web stream, or a BodyReader) one at a time. */
export async function* readSse(
  body: ReadableStream<Uint8Array> | BodyReader,
  signal?: StopSignal,
): AsyncGenerator<SseEvent> {
  const reader = body instanceof ReadableStream ? streamReader(body) : body;
  for await (const batch of readSseBatches(reader, signal)) yield* batch.events;
}

/** Whether SSE text ends on an event boundary (a blank line, in any of the three line ends). */
function endsEvent(text: string): boolean {
  return text.endsWith("\n\n") || text.endsWith("\r\r") || text.endsWith("\r\n\r\n");
}

const CR = 13;
const LF = 10;

/**
 * How many bytes of `chunk` follow its last blank line (two line ends in a row, each
 * CRLF, CR or LF), or -1 when it has none. Searched from the end: nearly always near it.
 */
function bytesAfterLastEvent(chunk: Uint8Array): number {
  for (let i = chunk.byteLength - 1; i >= 0; i--) {
    if (chunk[i] !== CR && chunk[i] !== LF) continue;
    // A run of line-end bytes: a blank line unless it is a single CR, LF or CRLF.
    let first = i;
    while (first > 0 && (chunk[first - 1] === CR || chunk[first - 1] === LF)) first--;
    const run = i - first + 1;
    if (run > 2 || (run === 2 && !(chunk[first] === CR && chunk[i] === LF))) {
      return chunk.byteLength - i - 1;
    }
    i = first;
  }
  return -1;
}
