/**
 * A request's translator: the translation toward each upstream protocol the request's
 * channels speak, passed through for the client's own (passthrough.ts), translated
 * through the IR for another (translated.ts); and, for a stream cut mid-text, the
 * request that asks a channel to continue it and the converter that joins the
 * continuation onto the client's stream (a rescue).
 */
import { continuationDecoder, type ContinuedUsage } from "./continuation.ts";
import type { Codec, StreamEncoder } from "./codec.ts";
import type { IrRequest } from "./ir.ts";
import { irStreamConverter } from "./ir_stream.ts";
import { passthrough } from "./passthrough.ts";
import type { Transcript } from "./transcript.ts";
import { translated } from "./translated.ts";
import type { StreamConverter, Translation, TranslatorOptions } from "./translation.ts";

/** A rescue's converter, and the usage its own upstream reported (which it is billed by). */
export interface ContinuedStream extends StreamConverter {
  upstreamUsage(): ReturnType<StreamConverter["usage"]>;
}

/** Hands out the translation toward each upstream protocol, built once per protocol. */
export interface Translator {
  toward(upstream: Codec): Translation;
  /**
   * The body asking a channel of `upstream`'s protocol to continue an answer whose text so
   * far is `prefill` (given as a trailing assistant turn), with at most `maxOutputTokens`
   * more; the client's reasoning settings are left out (a prefill cannot follow them).
   */
  prefilled(
    upstream: Codec,
    upstreamModel: string,
    prefill: string,
    maxOutputTokens?: number,
  ): Record<string, unknown>;
  /**
   * The converter of a continuation streamed by a channel of `upstream`'s protocol, going
   * on where the client's stream stands (`resumed`); `shown` is the whitespace the client
   * saw after `prefill`, `counted` what its answer already counts.
   */
  continued(
    upstream: Codec,
    resumed: { encoder: StreamEncoder; transcript: Transcript },
    shown: string,
    counted: ContinuedUsage,
  ): ContinuedStream;
}

/** A translator for one request. */
export function createTranslator(options: TranslatorOptions): Translator {
  const built = new Map<Codec, Translation>();
  let decoded: IrRequest | undefined;
  const request = (): IrRequest => {
    if (!decoded) {
      const { body, model, stream } = options.request;
      decoded = options.entry.decodeRequest(body, { model, stream });
      for (const field of decoded.dropped) {
        options.drop(field, "no equivalent upstream, and it does not change the answer");
      }
      if (decoded.reasoning && !options.reasoning) {
        options.drop("reasoning", "the model is not marked `reasoning = true` in the config");
        delete decoded.reasoning;
      }
    }
    return decoded;
  };
  return {
    toward(upstream) {
      let translation = built.get(upstream);
      if (!translation) {
        translation = upstream === options.entry
          ? passthrough(options, request)
          : translated(options, upstream, request);
        built.set(upstream, translation);
      }
      return translation;
    },
    prefilled(upstream, upstreamModel, prefill, maxOutputTokens) {
      const { reasoning: _reasoning, ...asked } = request();
      const continuing: IrRequest = {
        ...asked,
        stream: true,
        turns: [...asked.turns, { role: "assistant", parts: [{ type: "text", text: prefill }] }],
        maxOutputTokens: maxOutputTokens ?? asked.maxOutputTokens,
      };
      return upstream.encodeRequest(continuing, {
        model: upstreamModel,
        defaultMaxOutputTokens: options.defaultMaxOutputTokens,
        drop: options.drop,
        conversation: options.conversation,
      });
    },
    continued(upstream, resumed, shown, counted) {
      const decoder = continuationDecoder(
        upstream.createStreamDecoder(),
        resumed.transcript,
        shown,
        counted,
      );
      const converter = irStreamConverter(
        decoder,
        resumed.encoder,
        options.entry,
        resumed.transcript,
        options.redact,
      );
      return { ...converter, upstreamUsage: decoder.upstreamUsage };
    },
  };
}
