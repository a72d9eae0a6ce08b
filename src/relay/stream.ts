/**
 * Relays an upstream SSE stream to the client: each batch of upstream events (one
 * network chunk) is read under the idle timeout, converted (passed through or
 * translated, counting usage) and forwarded at once. After the first byte went out an
 * upstream failure ends the stream with the entry protocol's error event; a client
 * that goes away aborts the upstream request.
 */
import { GatewayError } from "../errors.ts";
import { shuttingDown } from "./failover.ts";
import { encodeSse, type SseBatch, type SseEvent } from "../protocols/sse.ts";
import type { StreamConverter } from "../translate/translation.ts";
import { type UpstreamExchange, UpstreamFailure } from "../upstream/call.ts";
import type { RelayOutcome } from "./outcome.ts";

const ENCODER = new TextEncoder();

/** Everything one stream relay needs; `first` is the batch already read during failover. */
export interface StreamRelay {
  exchange: UpstreamExchange;
  /** Upstream events in batches (one per network chunk); `first` was read during failover. */
  events: AsyncIterator<SseBatch>;
  first: SseBatch;
  /** While the upstream is silent, `text` goes to the client every `ms` (0: never). */
  keepalive: { ms: number; text: string };
  converter: StreamConverter;
  /** Told once, at the end, how long the stream waited on the upstream (overhead metric). */
  waited?: (ms: number) => void;
  /** Settles the request (its ledger write completes after the stream closed). */
  onEnd: (outcome: RelayOutcome) => void;
}

/** The client's response body for a stream relay. */
export function relayStream(relay: StreamRelay): ReadableStream<Uint8Array> {
  const { converter } = relay;
  let ended = false;
  // Summed here and told once: a stream reads thousands of chunks.
  let waitedMs = 0;
  // When the last read ended: what is sent after it counts as sent then (one clock reading a chunk).
  let readAt = performance.now();
  // One interval per stream: it sends a keep-alive when nothing went out for `ms`.
  let sentAt = readAt;
  let keepaliveTimer: ReturnType<typeof setInterval> | undefined;
  const startKeepalive = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const { ms, text } = relay.keepalive;
    if (ms <= 0) return;
    const bytes = ENCODER.encode(text);
    keepaliveTimer = setInterval(() => {
      if (ended || performance.now() - sentAt < ms) return;
      controller.enqueue(bytes);
      sentAt = performance.now();
    }, Math.max(1, Math.floor(ms / 2)));
  };
  const end = (status: RelayOutcome["status"], reason?: string) => {
    if (ended) return;
    ended = true;
    clearInterval(keepaliveTimer);
    relay.waited?.(waitedMs);
    relay.exchange.finish();
    relay.onEnd({
      status,
      reason,
      usage: converter.usage(),
      outputText: converter.outputText,
    });
  };
  const encode = (events: SseEvent[]): Uint8Array | undefined => {
    if (events.length === 0) return undefined;
    let text = "";
    for (const event of events) text += encodeSse(event);
    sentAt = readAt;
    return ENCODER.encode(text);
  };
  // A batch the converter left as it was goes out as the upstream's own bytes.
  const convert = (batch: SseBatch): Uint8Array | undefined => {
    const events = converter.events(batch.events);
    if (events !== batch.events || !batch.bytes) return encode(events);
    sentAt = readAt;
    return batch.bytes;
  };
  // The upstream reported an error mid-stream: its events went out; stop reading.
  const endOnFailure = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    const failure = converter.failure();
    if (!failure) return false;
    relay.exchange.abort(new UpstreamFailure("network", failure.message));
    end("failed", failure.message);
    controller.close();
    return true;
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const bytes = convert(relay.first);
      if (bytes) controller.enqueue(bytes);
      if (!endOnFailure(controller)) startKeepalive(controller);
    },
    async pull(controller) {
      try {
        // Loop until something is sent: a pull that enqueues nothing is never called again.
        for (;;) {
          const waitStart = relay.exchange.idle.start();
          let step: IteratorResult<SseBatch>;
          try {
            step = await relay.events.next();
          } finally {
            readAt = relay.exchange.idle.end();
          }
          waitedMs += readAt - waitStart;
          if (step.done) {
            const bytes = encode(converter.end());
            if (bytes) controller.enqueue(bytes);
            end(converter.failure() ? "failed" : "ok", converter.failure()?.message);
            controller.close();
            return;
          }
          const bytes = convert(step.value);
          if (bytes) controller.enqueue(bytes);
          if (endOnFailure(controller) || bytes) return;
        }
      } catch (error) {
        if (ended) return;
        const failure = error instanceof UpstreamFailure
          ? error
          : relay.exchange.signal.reason instanceof UpstreamFailure
          ? relay.exchange.signal.reason
          : undefined;
        if (failure?.kind === "client_gone") return end("aborted", failure.message);
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
        const bytes = encode(converter.error(gatewayError));
        if (bytes) controller.enqueue(bytes);
        relay.exchange.abort(new UpstreamFailure("network", gatewayError.message));
        end("failed", gatewayError.message);
        controller.close();
      }
    },
    cancel() {
      relay.exchange.abort(new UpstreamFailure("client_gone", "The client disconnected."));
      void relay.events.return?.(undefined);
      end("aborted", "The client disconnected mid-stream.");
    },
  });
}
