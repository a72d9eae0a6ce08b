/**
 * Relays an upstream SSE stream to the client: each batch of upstream events (one
 * network chunk) is read under the idle timeout, converted (passed through or
 * translated, counting usage) and written at once, the next read waiting for the write.
 * After the first byte went out an upstream failure ends the stream with the entry
 * protocol's error event; a client that goes away aborts the upstream request.
 */
import { GatewayError } from "../errors.ts";
import type { AnswerStream, ByteSink } from "../http/answer.ts";
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
   * Settles the request once the stream ended; `pipe` resolves only after it (it waits
   * only to load the tokenizer, to estimate usage), so that a server that drained its
   * connections has begun every settlement. The ledger write completes after the stream
   * closed.
   */
  onEnd: (outcome: RelayOutcome) => Promise<void> | void;
}

/** The client's answer body for a stream relay. */
export function relayStream(relay: StreamRelay): AnswerStream {
  return new RelayStream(relay);
}

/**
 * The answer's stream. Its state is in fields and its steps are methods, not a closure
 * each: an idle stream holds all of it for as long as it is open.
 */
class RelayStream implements AnswerStream, Ringing {
  readonly #exchange: UpstreamExchange;
  readonly #events: AsyncIterator<SseBatch>;
  readonly #converter: StreamConverter;
  readonly #waited: ((ms: number) => void) | undefined;
  readonly #onEnd: (outcome: RelayOutcome) => Promise<void> | void;
  readonly #keepalive: Keepalive;
  /** Dropped once sent: an idle stream does not keep its first chunk. */
  #first: SseBatch | undefined;
  #alarm: Alarm | undefined;
  #sink: ByteSink | undefined;
  /** A keep-alive being written: the next write waits for it (one write at a time). */
  #keepaliveWrite: Promise<void> | undefined;
  #ended = false;
  /** The settlement begun when the stream ended. */
  #settled: Promise<void> | void = undefined;
  /** Summed here and told once: a stream reads thousands of chunks. */
  #waitedMs = 0;
  /** When the last read ended: what is sent after it counts as sent then (one clock reading a chunk). */
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

  async pipe(sink: ByteSink): Promise<void> {
    this.#sink = sink;
    const exchange = this.#exchange;
    try {
      const first = this.#first!;
      this.#first = undefined;
      if (await this.#relay(first)) return;
      const { ms, clock } = this.#keepalive;
      if (ms > 0 && !this.#ended) {
        this.#alarm = clock.alarm(this);
        this.#alarm.set(this.#sentAt + ms);
      }
      while (!this.#ended) {
        const waitStart = exchange.idle.start();
        let step: IteratorResult<SseBatch>;
        try {
          step = await this.#events.next();
        } finally {
          this.#readAt = exchange.idle.end();
        }
        this.#waitedMs += this.#readAt - waitStart;
        if (await this.#relay(step.done ? UPSTREAM_ENDED : step.value)) return;
      }
    } catch (error) {
      if (!this.#ended) await this.#endOnError(error);
    } finally {
      await this.#settled;
    }
  }

  cancel(): void {
    if (this.#ended) return;
    this.#exchange.abort(new UpstreamFailure("client_gone", "The client disconnected."));
    void this.#events.return?.(undefined);
    this.#end("aborted", "The client disconnected mid-stream.");
  }

  /** The keep-alive alarm: a keep-alive if nothing went out for its time, else later. */
  ring(now: number): void {
    if (this.#ended) return;
    const { ms, bytes } = this.#keepalive;
    if (now - this.#sentAt < ms) return this.#alarm!.set(this.#sentAt + ms);
    // A client still taking the last keep-alive gets no other; it is looked at again an
    // interval from now (its time already past, the alarm would ring at every turn).
    if (!this.#keepaliveWrite) {
      this.#sentAt = now;
      const written = this.#sink!.write(bytes);
      this.#keepaliveWrite = written;
      written.then(this.#keepaliveWritten, this.#keepaliveWritten);
    }
    this.#alarm!.set(now + ms);
  }

  readonly #keepaliveWritten = (): void => {
    this.#keepaliveWrite = undefined;
  };

  /** One write at a time: a keep-alive under way goes out first; the `last` ends the body. */
  #write(bytes: Uint8Array, last = false): Promise<void> {
    const keepalive = this.#keepaliveWrite;
    return keepalive ? keepalive.then(() => this.#send(bytes, last)) : this.#send(bytes, last);
  }

  #send(bytes: Uint8Array, last: boolean): Promise<void> {
    return last ? this.#sink!.last(bytes) : this.#sink!.write(bytes);
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
   * Converts and writes one batch; true once the stream ended. A batch the converter left
   * as it was goes out as the upstream's own bytes; the last one (its body ended with it)
   * goes out with the closing events and the end of the body, in one write.
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
    if (!last) {
      if (bytes) await this.#write(bytes);
      return this.#endOnFailure();
    }
    if (bytes) await this.#write(bytes, true);
    const failure = converter.failure();
    this.#end(failure ? "failed" : "ok", failure?.message);
    return true;
  }

  /** The upstream reported an error mid-stream: its events went out; stop reading. */
  #endOnFailure(): boolean {
    const failure = this.#converter.failure();
    if (!failure) return false;
    this.#exchange.abort(new UpstreamFailure("network", failure.message));
    this.#end("failed", failure.message);
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
    // The client may be gone too: then the stream simply ends.
    if (bytes) await this.#write(bytes).catch(() => {});
  }
}
