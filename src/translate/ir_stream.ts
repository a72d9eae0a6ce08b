/**
 * A stream converted through the IR: each upstream event decoded, taken note of (usage,
 * produced text, and the transcript of a stream a rescue may continue) and encoded for
 * the client. A translated stream is one (translated.ts), and so is a rescue's
 * continuation, which goes on through the encoder the client's stream already has.
 */
import type { GatewayError } from "../errors.ts";
import type { SseEvent } from "./sse.ts";
import type { Codec, StreamDecoder, StreamEncoder } from "./codec.ts";
import { upstreamStreamError } from "./errors.ts";
import type { IrEvent } from "./ir.ts";
import type { Transcript } from "./transcript.ts";
import type { StreamConverter } from "./translation.ts";
import type { Usage } from "../usage.ts";

/**
 * A converter from `decoder`'s upstream to `encoder`'s client (of protocol `client`), noting
 * into `transcript`; an upstream's error message has the config's secrets `redact`ed.
 */
export function irStreamConverter(
  decoder: StreamDecoder,
  encoder: StreamEncoder,
  client: Codec,
  transcript?: Transcript,
  redact?: (text: string) => string,
): StreamConverter {
  let usage: Usage | undefined;
  let text = "";
  let failure: GatewayError | undefined;
  const convert = (events: IrEvent[], out: SseEvent[]) => {
    for (const event of events) {
      if (failure) return;
      if (event.type === "error") {
        const { error } = event;
        failure = upstreamStreamError(
          redact && error.message ? { ...error, message: redact(error.message) } : error,
          client,
        );
        out.push(...encoder.error(failure));
        return;
      }
      transcript?.observe(event);
      if (event.type === "usage") usage = event.usage;
      else if (event.type === "start" && event.usage) usage = event.usage;
      else if (
        event.type === "text_delta" || event.type === "reasoning_delta" ||
        event.type === "refusal_delta"
      ) text += event.text;
      else if (event.type === "arguments_delta") text += event.json;
      out.push(...encoder.encode(event));
    }
  };
  return {
    events(batch) {
      const out: SseEvent[] = [];
      for (const event of batch) convert(decoder.decode(event), out);
      return out;
    },
    end() {
      const out: SseEvent[] = [];
      convert(decoder.end(), out);
      if (!failure) out.push(...encoder.end());
      return out;
    },
    error: (error) => encoder.error(error),
    failure: () => failure,
    usage: () => usage,
    outputText: () => text,
    resume: () => transcript && { encoder, transcript },
  };
}
