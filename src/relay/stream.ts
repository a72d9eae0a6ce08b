/**
 * Relays an upstream SSE stream to the client: each batch of upstream events (one
 * network chunk) is read under the idle timeout, tapped for usage, translated and
 * forwarded at once. After the
 * first byte went out an upstream failure ends the stream with the protocol's
 * error event; a client that goes away aborts the upstream request.
 */
import type { EntryProtocol } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { encodeSse, type SseEvent } from "../protocols/sse.ts";
import { protocolOf } from "../protocols/index.ts";
import type { StreamTranslator } from "../translate/translation.ts";
import { type UpstreamExchange, UpstreamFailure } from "../upstream/call.ts";
import type { RelayOutcome } from "./outcome.ts";
import type { UsageTap } from "../protocols/types.ts";

const ENCODER = new TextEncoder();

/** Everything one stream relay needs; `first` is the event already read during failover. */
export interface StreamRelay {
  entry: EntryProtocol;
  requestId: string;
  exchange: UpstreamExchange;
  /** Upstream events in batches (one per network chunk); `first` was read during failover. */
  events: AsyncIterator<SseEvent[]>;
  first: SseEvent[];
  idleMs: number;
  translator: StreamTranslator;
  tap: UsageTap;
  /** Collects produced text for estimation when no usage is reported. */
  collectText: (event: SseEvent) => void;
  outputText: () => string;
  /** Settles the request; the stream closes only after it, so a finished stream is billed. */
  onEnd: (outcome: RelayOutcome) => Promise<void>;
}

/** The client's response body for a stream relay. */
export function relayStream(relay: StreamRelay): ReadableStream<Uint8Array> {
  let ended = false;
  const end = async (status: RelayOutcome["status"], reason?: string) => {
    if (ended) return;
    ended = true;
    relay.exchange.finish();
    await relay.onEnd({ status, reason, usage: relay.tap.usage(), outputText: relay.outputText });
  };
  const encode = (batch: SseEvent[]): string => {
    let text = "";
    for (const event of batch) {
      relay.tap.observe(event);
      relay.collectText(event);
      for (const out of relay.translator.event(event)) text += encodeSse(out);
    }
    return text;
  };

  return new ReadableStream<Uint8Array>({
    start(controller) {
      const text = encode(relay.first);
      if (text) controller.enqueue(ENCODER.encode(text));
    },
    async pull(controller) {
      try {
        // Loop until something is sent: a pull that enqueues nothing is never called again.
        for (;;) {
          const step = await relay.exchange.idle(relay.events.next(), relay.idleMs);
          if (step.done) {
            await end("ok");
            controller.close();
            return;
          }
          const text = encode(step.value);
          if (text) return controller.enqueue(ENCODER.encode(text));
        }
      } catch (error) {
        if (ended) return;
        const failure = error instanceof UpstreamFailure
          ? error
          : relay.exchange.signal.reason instanceof UpstreamFailure
          ? relay.exchange.signal.reason
          : undefined;
        if (failure?.kind === "client_gone") return await end("aborted", failure.message);
        const gatewayError = failure?.kind === "timeout"
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
        const events = protocolOf(relay.entry).streamErrorEvents(gatewayError, relay.requestId);
        controller.enqueue(ENCODER.encode(events.map(encodeSse).join("")));
        relay.exchange.abort(new UpstreamFailure("network", gatewayError.message));
        await end("failed", gatewayError.message);
        controller.close();
      }
    },
    async cancel() {
      relay.exchange.abort(new UpstreamFailure("client_gone", "The client disconnected."));
      void relay.events.return?.(undefined);
      await end("aborted", "The client disconnected mid-stream.");
    },
  });
}
