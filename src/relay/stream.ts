/**
 * Relays an upstream SSE stream to the client as the body of its response: each batch
 * of upstream events (one network chunk) is read under the idle timeout when the client's
 * side asks for more, converted (passed through or translated, counting usage) and
 * handed on at once.
 * After the first byte went out an upstream failure ends the stream with the entry
 * protocol's error event; a client that goes away aborts the upstream request.
 */
import { GatewayError } from "../errors.ts";
import { shuttingDown } from "./failover.ts";
import { encodeSse, type SseBatch, type SseEvent } from "../protocols/sse.ts";
import type { StreamConverter } from "../translate/translation.ts";
import type { Alarm, AlarmClock, Ringing } from "../upstream/alarm_clock.ts";
import { type UpstreamExchange, UpstreamFailure } from "../upstream/call.ts";
import type { RelayOutcome } from "./outcome.ts";

const ENCODER = new TextEncoder();
/** The upstream's stream ended after its last batch: nothing more but the closing events. */
const UPSTREAM_ENDED: SseBatch = Object.freeze({ events: [], last: true });

/** Keep-alives of a stream: `bytes` go out once nothing went out for `ms` (0: never). */
export interface Keepalive {
  ms: number;
  /** The protocol's keep-alive, encoded once for every stream. */
  bytes: Uint8Array;
  /** The app's clock: one timer for every open stream's next keep-alive. */
  clock: AlarmClock;
}

/** Everything one stream relay needs; `first` is the batch already read during failover. */
export interface StreamRelay {
  exchange: UpstreamExchange;
  /** Upstream events in batches (one per network chunk); `first` was read during failover. */
  events: AsyncIterator<SseBatch>;
  first: SseBatch;
  keepalive: Keepalive;
  converter: StreamConverter;
  /** Told once, at the end, how long the stream waited on the upstream (overhead metric). */
  waited?: (ms: number) => void;
  /**
   * Settles the request once the stream ended; the body closes only after it (it waits
   * only to load the tokenizer, to estimate usage), so that a server that drained its
   * requests has begun every settlement. The ledger write completes after the body closed.
   */
  onEnd: (outcome: RelayOutcome) => Promise<void> | void;
}

/** The client's response body for a stream relay. */
export function relayStream(relay: StreamRelay): ReadableStream<Uint8Array> {
  // No queue ahead of the client: the next upstream read waits for the client's side.
  return new ReadableStream(new RelayStream(relay), { highWaterMark: 0 });
}

/**
 * The response body's source. Its state is in fields and its steps are methods, not a
 * closure each: an idle stream holds all of it for as long as it is open.
 */
class RelayStream implements UnderlyingDefaultSource<Uint8Array>, Ringing {
  readonly #exchange: UpstreamExchange;
  readonly #events: AsyncIterator<SseBatch>;
  readonly #converter: StreamConverter;
  readonly #waited: ((ms: number) => void) | undefined;
  readonly #onEnd: (outcome: RelayOutcome) => Promise<void> | void;
  readonly #keepalive: Keepalive;
  /** Dropped once sent: an idle stream does not keep its first batch. */
  #first: SseBatch | undefined;
  #alarm: Alarm | undefined;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #ended = false;
  /** The settlement begun when the stream ended. */
  #settled: Promise<void> | void = undefined;
  /** Summed here and told once: a stream reads thousands of chunks. */
  #waitedMs = 0;
  /** When the last read ended: what is sent after it counts as sent then. */
  #readAt = performance.now();
  #sentAt = this.#readAt;

  constructor(relay: StreamRelay) {
    this.#exchange = relay.exchange;
    this.#events = relay.events;
    this.#first = relay.first;
    this.#converter = relay.converter;
    this.#waited = relay.waited;
    this.#onEnd = relay.onEnd;
    this.#keepalive = relay.keepalive;
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
    const { ms, clock } = this.#keepalive;
    if (ms > 0) {
      this.#alarm = clock.alarm(this);
      this.#alarm.set(this.#sentAt + ms);
    }
  }

  /**
   * Batches of the upstream's, converted, until one made bytes for the client (a batch
   * may convert to nothing, and the runtime asks again only once something came).
   */
  async pull(): Promise<void> {
    try {
      while (!this.#ended && !await this.#relay(await this.#nextBatch()));
    } catch (error) {
      if (!this.#ended) await this.#endOnError(error);
    }
  }

  /** The next batch: the first, read during failover, then the upstream's under the idle timeout. */
  async #nextBatch(): Promise<SseBatch> {
    const first = this.#first;
    if (first) {
      this.#first = undefined;
      return first;
    }
    const exchange = this.#exchange;
    const waitStart = exchange.idle.start();
    let step: IteratorResult<SseBatch>;
    try {
      step = await this.#events.next();
    } finally {
      this.#readAt = exchange.idle.end();
    }
    this.#waitedMs += this.#readAt - waitStart;
    return step.done ? UPSTREAM_ENDED : step.value;
  }

  /** The client went away: the upstream request is aborted and the request settled. */
  cancel(): Promise<void> | void {
    if (this.#ended) return this.#settled;
    this.#exchange.abort(new UpstreamFailure("client_gone", "The client disconnected."));
    void this.#events.return?.(undefined);
    this.#end("aborted", "The client disconnected mid-stream.");
    return this.#settled;
  }

  /** The keep-alive alarm: a keep-alive if nothing went out for its time, else later. */
  ring(now: number): void {
    if (this.#ended) return;
    const { ms, bytes } = this.#keepalive;
    if (now - this.#sentAt < ms) return this.#alarm!.set(this.#sentAt + ms);
    // A client that has not taken what was queued gets no more: it is looked at again an
    // interval from now.
    if ((this.#controller.desiredSize ?? 0) >= 0) {
      this.#sentAt = now;
      this.#enqueue(bytes);
    }
    this.#alarm!.set(now + ms);
  }

  #enqueue(bytes: Uint8Array): void {
    try {
      this.#controller.enqueue(bytes);
    } catch {
      // The body was cancelled meanwhile: cancel() ends the stream.
    }
  }

  /** Ends the body once the settlement began (see StreamRelay.onEnd). */
  async #close(): Promise<void> {
    await this.#settled;
    try {
      this.#controller.close();
    } catch {
      // Cancelled meanwhile.
    }
  }

  #end(status: RelayOutcome["status"], reason?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#alarm?.cancel();
    this.#waited?.(this.#waitedMs);
    this.#exchange.finish();
    const converter = this.#converter;
    this.#settled = this.#onEnd({
      status,
      reason,
      usage: converter.usage(),
      outputText: converter.outputText,
    });
  }

  #encode(events: SseEvent[]): Uint8Array | undefined {
    if (events.length === 0) return undefined;
    let text = "";
    for (const event of events) text += encodeSse(event);
    this.#sentAt = this.#readAt;
    return ENCODER.encode(text);
  }

  /**
   * Converts and hands on one batch; whether it made bytes or ended the stream. A batch
   * the converter left as it was goes out as the upstream's own bytes; the last one (its
   * body ended with it) goes out with the closing events, and the body ends after it.
   */
  async #relay(batch: SseBatch): Promise<boolean> {
    const converter = this.#converter;
    let events = converter.events(batch.events);
    const last = batch.last === true && !converter.failure();
    if (last) {
      const closing = converter.end();
      if (closing.length > 0) events = [...events, ...closing];
    }
    let bytes: Uint8Array | undefined;
    if (events === batch.events && batch.bytes) {
      this.#sentAt = this.#readAt;
      bytes = batch.bytes;
    } else bytes = this.#encode(events);
    if (bytes) this.#enqueue(bytes);
    if (!last) return await this.#endOnFailure() || bytes !== undefined;
    const failure = converter.failure();
    this.#end(failure ? "failed" : "ok", failure?.message);
    await this.#close();
    return true;
  }

  /** The upstream reported an error mid-stream: its events went out; stop reading. */
  async #endOnFailure(): Promise<boolean> {
    const failure = this.#converter.failure();
    if (!failure) return false;
    this.#exchange.abort(new UpstreamFailure("network", failure.message));
    this.#end("failed", failure.message);
    await this.#close();
    return true;
  }

  /** The read failed: the client gets the protocol's error event, unless it went away. */
  async #endOnError(error: unknown): Promise<void> {
    const { signal } = this.#exchange;
    const failure = error instanceof UpstreamFailure
      ? error
      : signal.reason instanceof UpstreamFailure
      ? signal.reason
      : undefined;
    if (failure?.kind === "client_gone") return this.#end("aborted", failure.message);
    const gatewayError = failure?.kind === "shutdown"
      ? shuttingDown()
      : failure?.kind === "timeout"
      ? new GatewayError(
        504,
        "upstream_timeout",
        `The upstream stream stalled: ${failure.message}`,
      )
      : new GatewayError(
        502,
        "upstream_error",
        "The upstream stream broke off before it finished.",
      );
    const bytes = this.#encode(this.#converter.error(gatewayError));
    this.#exchange.abort(new UpstreamFailure("network", gatewayError.message));
    this.#end("failed", gatewayError.message);
    if (bytes) this.#enqueue(bytes);
    await this.#close();
  }
}
