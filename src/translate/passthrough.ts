/**
 * The same-protocol translation: the client's body goes upstream with only `model`
 * mapped (and, for chat streams, usage requested), and the upstream's bytes come back
 * untouched, except the usage-only chunk of a chat stream the client did not ask for.
 */
import type { EntryProtocol } from "../config/schema.ts";
import type { GatewayError } from "../errors.ts";
import { protocolOf } from "../protocols/index.ts";
import { asRecord } from "../protocols/json_read.ts";
import { withFirstMember, withTopLevelString } from "../protocols/json_splice.ts";
import { reportsUsage } from "../protocols/chat/usage.ts";
import { outputTextCollector } from "../protocols/text.ts";
import { upstreamStreamError } from "./errors.ts";
import type { StreamConverter, Translation, TranslatorOptions } from "./translation.ts";
import { codecOf } from "./codecs.ts";
import type { IrRequest } from "./ir.ts";
import { Transcript } from "./transcript.ts";
import { answerContext } from "./translated.ts";
import { orderedId } from "../ids.ts";

/** What a chat stream's body gets when its client did not ask for usage. */
const USAGE_REQUESTED = '"stream_options":{"include_usage":true}';

/**
 * The translation of a request toward a channel of its own protocol; `request` is the
 * client's request decoded, needed only to continue a stream after a cut (a rescue).
 */
export function passthrough(options: TranslatorOptions, request: () => IrRequest): Translation {
  const { entry } = options;
  const client = options.request;
  const wire = protocolOf(entry);
  // A chat stream that did not ask for usage is made to: its usage chunk is then hidden.
  const hideUsageChunk = asksForUsage(entry, client.body, client.stream);
  return {
    upstream: entry,
    // The client's bytes, a mapped model replaced in them and, for a chat stream that
    // did not ask for usage, the request for it written first.
    upstreamBytes(upstreamModel, raw) {
      const bytes = upstreamModel === client.model
        ? raw
        : withTopLevelString(raw, "model", upstreamModel);
      if (!bytes || !hideUsageChunk) return bytes;
      // Other stream options of the client's are kept by writing the body anew.
      return client.body.stream_options === undefined
        ? withFirstMember(bytes, USAGE_REQUESTED)
        : undefined;
    },
    upstreamBody: (upstreamModel) => passthroughRequest(client.body, upstreamModel, hideUsageChunk),
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
      const shadow = track ? codecOf(entry).createStreamDecoder() : undefined;
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
            if (hideUsageChunk && isChatUsageChunk(event.data)) {
              if (out === batch) out = batch.slice(0, i);
              continue;
            }
            if (out !== batch) out.push(event);
            const report = wire.streamError(event);
            if (report) {
              // Relayed as the upstream sent it; the relay ends the stream after this batch.
              failure = upstreamStreamError(report, entry);
              return out === batch && i < batch.length - 1 ? batch.slice(0, i + 1) : out;
            }
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
          const encoder = codecOf(entry).createStreamEncoder(
            answerContext(options, request(), upstreamModel, newId),
          );
          for (const event of transcript.replay()) encoder.encode(event);
          return { encoder, transcript };
        },
      };
    },
  };
}

/** Whether a chat chunk carries only usage (`choices: []`), as `include_usage` adds at the end. */
export function isChatUsageChunk(data: string): boolean {
  if (!reportsUsage(data)) return false;
  try {
    const chunk = JSON.parse(data);
    return Array.isArray(chunk?.choices) && chunk.choices.length === 0 && chunk.usage != null;
  } catch {
    return false;
  }
}

/** Whether a same-protocol body must ask for usage: a chat stream that did not. */
function asksForUsage(
  protocol: EntryProtocol,
  body: Record<string, unknown>,
  stream: boolean,
): boolean {
  return protocol === "chat" && stream && asRecord(body.stream_options)?.include_usage !== true;
}

/**
 * The upstream body of a same-protocol relay: the client's body with only `model`
 * mapped and, when `askUsage` (asksForUsage), usage requested so the upstream reports it.
 */
function passthroughRequest(
  body: Record<string, unknown>,
  upstreamModel: string,
  askUsage: boolean,
): Record<string, unknown> {
  const upstream: Record<string, unknown> = { ...body, model: upstreamModel };
  if (askUsage) {
    const options = typeof body.stream_options === "object" && body.stream_options !== null
      ? body.stream_options
      : {};
    upstream.stream_options = { ...options, include_usage: true };
  }
  return upstream;
}
