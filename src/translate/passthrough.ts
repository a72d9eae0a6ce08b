/**
 * The same-protocol translation: the client's body goes upstream with only what the
 * protocol's passthrough changes (its model, mapped; chat streams ask for usage), and the
 * upstream's bytes come back untouched but for what the passthrough hides (the usage chunk
 * a chat client did not ask for).
 */
import type { GatewayError } from "../errors.ts";
import { orderedId } from "../ids.ts";
import { upstreamStreamError } from "./errors.ts";
import type { IrRequest } from "./ir.ts";
import { outputTextCollector } from "./produced_text.ts";
import { Transcript } from "./transcript.ts";
import { answerContext } from "./translated.ts";
import type { StreamConverter, Translation, TranslatorOptions } from "./translation.ts";

/**
 * The translation of a request toward a channel of its own protocol; `request` is the
 * client's request decoded, needed only to continue a stream after a cut (a rescue).
 */
export function passthrough(options: TranslatorOptions, request: () => IrRequest): Translation {
  const wire = options.entry;
  const relayed = wire.passthrough(options.request);
  return {
    upstream: wire,
    upstreamBytes: relayed.bytes,
    upstreamBody: relayed.body,
    response: ({ bytes, json }) => ({
      body: bytes,
      json,
      usage: wire.usageFromResponse(json),
      outputText: () => wire.responseText(json),
    }),
    stream(upstreamModel, track): StreamConverter {
      const tap = wire.createUsageTap();
      const collector = outputTextCollector(wire);
      let failure: GatewayError | undefined;
      // A stream a rescue may continue is read as the client reads it, into its transcript.
      const shadow = track ? wire.createStreamDecoder() : undefined;
      const transcript = track ? new Transcript() : undefined;
      return {
        // The batch itself when nothing is left out, so the relay can forward its bytes.
        events(batch) {
          let out = batch;
          for (let i = 0; i < batch.length; i++) {
            const event = batch[i]!;
            tap.observe(event);
            collector.observe(event);
            if (shadow) { for (const ir of shadow.decode(event)) transcript!.observe(ir); }
            if (relayed.hides(event)) {
              if (out === batch) out = batch.slice(0, i);
              continue;
            }
            const report = wire.streamError(event);
            if (report) {
              // Relayed as the upstream sent it but for the config's secrets; the relay ends
              // the stream after this batch.
              const redact = options.redact;
              const data = redact ? redact(event.data) : event.data;
              if (data !== event.data) {
                if (out === batch) out = batch.slice(0, i);
                out.push({ ...event, data });
              } else if (out !== batch) out.push(event);
              const message = report.message && redact ? redact(report.message) : report.message;
              failure = upstreamStreamError({ ...report, message }, wire);
              return out === batch && i < batch.length - 1 ? batch.slice(0, i + 1) : out;
            }
            if (out !== batch) out.push(event);
          }
          return out;
        },
        end: () => [],
        error: (error) => wire.streamErrorEvents(error, options.requestId),
        failure: () => failure,
        usage: tap.usage,
        outputText: collector.text,
        resume() {
          if (!transcript) return undefined;
          // A fresh encoder, brought to where the client is, with the ids it was sent.
          const ids = transcript.ids(wire.idPrefix);
          const fresh = options.newId ?? ((prefix: string) => orderedId(prefix, options.now()));
          const newId = (prefix: string) => ids.get(prefix)?.shift() ?? fresh(prefix);
          const encoder = wire.createStreamEncoder(
            answerContext(options, request(), upstreamModel, newId),
          );
          for (const event of transcript.replay()) encoder.encode(event);
          return { encoder, transcript };
        },
      };
    },
  };
}
