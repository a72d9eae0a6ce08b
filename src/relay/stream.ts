/**
 * Relays a committed answer's stream to the client as the body of its response: the
 * held-back preamble and first content, then each batch of upstream events (one network
 * chunk) read under the idle timeout when the client's side asks for more, converted
 * (passed through or translated, counting usage) and handed on at once.
 * The body may open before the answer is committed (keep-alives while a model is silent):
 * it then waits for the first leg. A leg that fails after its content went out (cut,
 * stalled, malformed, ended without its terminal event) is continued by a rescue's leg
 * when there is one, else the stream ends with the entry protocol's error event; never a
 * clean end for a cut answer. A client that goes away aborts the upstream request.
 */
import type { AttemptRecord } from "../billing/attempt_record.ts";
import type { Attempt } from "../routing/router.ts";
import { GatewayError } from "../errors.ts";
import type { Protocol } from "../protocols/index.ts";
import { encodeSse, type SseEvent } from "../translate/sse.ts";
import type { StreamConverter } from "../translate/translation.ts";
import type { Alarm, AlarmClock, Ringing } from "../clock/alarm_clock.ts";
import { type UpstreamExchange, UpstreamFailure } from "../upstream/call.ts";
import { isMalformed } from "./commit.ts";
import type { RelayOutcome } from "./outcome.ts";
import { shuttingDown } from "./verdict.ts";
import type { Usage } from "../usage.ts";
import { type SseBatch } from "../upstream/sse.ts";

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

/** One upstream's part of the answer: the committed attempt's, or a rescue's after it. */
export interface Leg {
  attempt: Attempt;
  /** The attempt's record, billed once the leg ends. */
  record: AttemptRecord;
  /** The usage its upstream reported so far (not the client's, which a rescue adds up). */
  reported(): Usage | undefined;
  exchange: UpstreamExchange;
  /** Its upstream's event batches still to come. */
  events: AsyncIterator<SseBatch>;
  converter: StreamConverter;
  /** The protocol its upstream answers in. */
  upstream: Protocol;
  /** The client's bytes held back until commit, sent first. */
  held: Uint8Array[];
  /** Its upstream's body ended at commit (an answer that ended before any content). */
  ended: boolean;
}

/** How a leg broke off after its content went out. */
export interface Cut {
  leg: Leg;
  failure: UpstreamFailure;
}

/** Everything one stream relay needs. */
export interface StreamRelay {
  /** The committed leg; rejects with the client's error when every attempt failed. */
  first: Promise<Leg>;
  keepalive: Keepalive;
  entry: Protocol;
  requestId: string;
  /** A leg that continues the answer after `cut` (a rescue), or undefined when none can. */
  rescue(cut: Cut): Promise<Leg | undefined>;
  /** Told once, at the end, how long the stream waited on the upstream (overhead metric). */
  waited?: (ms: number) => void;
  /**
   * Settles the request once the stream ended (`leg`: the last one, if any was committed);
   * the body closes only after it (it waits only to load the tokenizer, to estimate usage),
   * so that a server that drained its requests has begun every settlement.
   */
  onEnd: (outcome: RelayOutcome, leg: Leg | undefined) => Promise<void> | void;
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
  readonly #relay: StreamRelay;
  #leg: Leg | undefined;
  /** Whether the leg's upstream sent its terminal event. */
  #properlyEnded = false;
  #alarm: Alarm | undefined;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #ended = false;
  /** The settlement begun when the stream ended. */
  #settled: Promise<void> | void = undefined;
  /** Summed here and told once: a stream reads thousands of chunks. */
  #waitedMs = 0;
  /**
   * When the last read ended, on the keep-alives' clock (the exchange's deadlines are on it
   * too): what is sent after it counts as sent then.
   */
  #readAt: number;
  #sentAt: number;

  constructor(relay: StreamRelay) {
    this.#relay = relay;
    this.#readAt = this.#sentAt = relay.keepalive.clock.now();
  }

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.#controller = controller;
    const { ms, clock, bytes } = this.#relay.keepalive;
    // A protocol without a keep-alive (Gemini's: its clients stall on a comment) sends nothing.
    if (ms > 0 && bytes.byteLength > 0) {
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
      if (!this.#leg && !await this.#begin()) return;
      while (!this.#ended && !await this.#relayBatch(await this.#nextBatch()));
    } catch (error) {
      if (!this.#ended) await this.#broken(error);
    }
  }

  /** Waits for the committed leg and sends what it held back; false when none came. */
  async #begin(): Promise<boolean> {
    let leg: Leg;
    try {
      leg = await this.#relay.first;
    } catch (error) {
      // Every attempt failed before the answer began: the error event is all there is.
      const gatewayError = error instanceof GatewayError ? error : shuttingDown();
      this.#end("failed", gatewayError.message, undefined);
      this.#enqueue(this.#encode(
        this.#relay.entry.streamErrorEvents(gatewayError, this.#relay.requestId),
      ));
      await this.#close();
      return false;
    }
    this.#use(leg);
    return true;
  }

  /** Makes `leg` the one relayed, sending what it held back. */
  #use(leg: Leg): void {
    this.#leg = leg;
    this.#properlyEnded = leg.ended;
    this.#readAt = this.#relay.keepalive.clock.now();
    for (const bytes of leg.held) {
      this.#sentAt = this.#readAt;
      this.#enqueue(bytes);
    }
    leg.held = [];
  }

  /** The leg's next batch, read under the idle timeout. */
  async #nextBatch(): Promise<SseBatch> {
    const leg = this.#leg!;
    if (leg.ended) return UPSTREAM_ENDED;
    const waitStart = leg.exchange.idle.start();
    let step: IteratorResult<SseBatch>;
    try {
      step = await leg.events.next();
    } finally {
      this.#readAt = leg.exchange.idle.end();
    }
    this.#waitedMs += this.#readAt - waitStart;
    return step.done ? UPSTREAM_ENDED : step.value;
  }

  /** The client went away: the upstream request is aborted and the request settled. */
  cancel(): Promise<void> | void {
    if (this.#ended) return this.#settled;
    const leg = this.#leg;
    if (leg) abandon(leg);
    // Gone before the answer was committed: the attempt that commits later is let go.
    else this.#relay.first.then(abandon, () => {});
    this.#end("aborted", "The client disconnected mid-stream.", leg);
    return this.#settled;
  }

  /** The keep-alive alarm: a keep-alive if nothing went out for its time, else later. */
  ring(now: number): void {
    if (this.#ended) return;
    const { ms, bytes } = this.#relay.keepalive;
    if (now - this.#sentAt < ms) return this.#alarm!.set(this.#sentAt + ms);
    // A client that has not taken what was queued gets no more: it is looked at again an
    // interval from now.
    if ((this.#controller.desiredSize ?? 0) >= 0) {
      this.#sentAt = now;
      this.#enqueue(bytes);
    }
    this.#alarm!.set(now + ms);
  }

  #enqueue(bytes: Uint8Array | undefined): void {
    if (!bytes) return;
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

  #end(status: RelayOutcome["status"], reason: string | undefined, leg: Leg | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#alarm?.cancel();
    this.#relay.waited?.(this.#waitedMs);
    leg?.exchange.finish();
    this.#settled = this.#relay.onEnd({ status, reason }, leg);
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
  async #relayBatch(batch: SseBatch): Promise<boolean> {
    const leg = this.#leg!;
    const { converter } = leg;
    const wire = leg.upstream;
    let upstreamEvents = batch.events;
    let malformed = false;
    for (let i = 0; i < upstreamEvents.length; i++) {
      const event = upstreamEvents[i]!;
      if (isMalformed(event)) {
        upstreamEvents = upstreamEvents.slice(0, i);
        malformed = true;
        break;
      }
      if (wire.streamEnded(event)) this.#properlyEnded = true;
    }
    let events = converter.events(upstreamEvents);
    const last = batch.last === true && !malformed && !converter.failure();
    const cut = last && !this.#properlyEnded;
    if (last && !cut) {
      const closing = converter.end();
      if (closing.length > 0) events = [...events, ...closing];
    }
    let bytes: Uint8Array | undefined;
    if (events === batch.events && batch.bytes && !malformed) {
      this.#sentAt = this.#readAt;
      bytes = batch.bytes;
    } else bytes = this.#encode(events);
    this.#enqueue(bytes);
    if (malformed) {
      throw new UpstreamFailure("network", "The upstream sent a stream event that is not JSON.");
    }
    if (cut) {
      throw new UpstreamFailure("network", "The upstream stream ended before its answer did.");
    }
    if (!last) return await this.#endOnFailure() || bytes !== undefined;
    const failure = converter.failure();
    this.#end(failure ? "failed" : "ok", failure?.message, leg);
    await this.#close();
    return true;
  }

  /** The upstream reported an error mid-stream: its events went out; stop reading. */
  async #endOnFailure(): Promise<boolean> {
    const leg = this.#leg!;
    const failure = leg.converter.failure();
    if (!failure) return false;
    leg.exchange.abort(new UpstreamFailure("network", failure.message));
    this.#end("failed", failure.message, leg);
    await this.#close();
    return true;
  }

  /**
   * The leg broke off: a rescue's leg goes on with the answer, else the client gets the
   * protocol's error event, unless it went away.
   */
  async #broken(error: unknown): Promise<void> {
    const leg = this.#leg!;
    const { signal } = leg.exchange;
    const failure = error instanceof UpstreamFailure
      ? error
      : signal.reason instanceof UpstreamFailure
      ? signal.reason
      : new UpstreamFailure("network", "The upstream stream broke off.", { cause: error });
    if (failure.kind === "client_gone") return this.#end("aborted", failure.message, leg);
    leg.exchange.abort(failure);
    void leg.events.return?.(undefined);
    if (failure.kind !== "shutdown") {
      const next = await this.#relay.rescue({ leg, failure }).catch(() => undefined);
      if (next && !this.#ended) {
        leg.exchange.finish();
        this.#use(next);
        return await this.pull();
      }
      next?.exchange.abort(new UpstreamFailure("client_gone", "The client disconnected."));
    }
    if (this.#ended) return;
    const gatewayError = failure.kind === "shutdown"
      ? shuttingDown()
      : failure.kind === "timeout"
      ? new GatewayError(504, "upstream_timeout", `The upstream stream stalled: ${failure.message}`)
      : new GatewayError(
        502,
        "upstream_error",
        "The upstream stream broke off before it finished.",
      );
    const bytes = this.#encode(this.#leg!.converter.error(gatewayError));
    this.#end("failed", gatewayError.message, this.#leg);
    this.#enqueue(bytes);
    await this.#close();
  }
}

/** Stops a leg's upstream: the client is gone. */
function abandon(leg: Leg): void {
  leg.exchange.abort(new UpstreamFailure("client_gone", "The client disconnected."));
  void leg.events.return?.(undefined);
  leg.exchange.finish();
}
