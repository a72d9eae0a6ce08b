/**
 * A rescue's stream joined onto the answer the client already has: the continuation's
 * upstream was sent the conversation plus the answer's text as a trailing assistant turn,
 * so its IR events are the rest of the same answer. Its `start` is dropped (the client
 * had one), its first text goes on in the text part still open, later parts are numbered
 * after the client's, the whitespace the client saw after the prefill is not repeated,
 * and usage is reported as the client's one answer: the first call's input, and all the
 * output of both.
 */

import type { StreamDecoder } from "./codec.ts";
import type { IrEvent } from "./ir.ts";
import type { Transcript } from "./transcript.ts";
import type { Usage } from "../usage.ts";

/** What the client's answer already counts. */
export interface ContinuedUsage {
  /** The first call's input, as the client was told (or as estimated). */
  input: Usage;
  /** Output tokens the client already had. */
  outputTokens: number;
}

/** A continuation's decoder, and the usage its own upstream reported (which it is billed by). */
export interface ContinuationDecoder extends StreamDecoder {
  upstreamUsage(): Usage | undefined;
}

/**
 * Wraps the rescue channel's decoder. `shown` is the whitespace the client saw after the
 * prefill's text (trimmed off it); the continuation's text does not repeat it.
 */
export function continuationDecoder(
  inner: StreamDecoder,
  transcript: Transcript,
  shown: string,
  counted: ContinuedUsage,
): ContinuationDecoder {
  const indexes = new Map<number, number>();
  let next = transcript.partCount;
  let joined = transcript.openText === undefined;
  let strip = shown;
  let upstream: Usage | undefined;

  const usage = (reported: Usage): IrEvent => ({
    type: "usage",
    usage: {
      input_tokens: counted.input.input_tokens,
      cached_tokens: counted.input.cached_tokens,
      cache_write_tokens: counted.input.cache_write_tokens,
      output_tokens: counted.outputTokens + reported.output_tokens,
    },
  });
  const text = (value: string): string => {
    if (strip === "") return value;
    let same = 0;
    while (same < value.length && same < strip.length && value[same] === strip[same]) same++;
    strip = same === value.length ? strip.slice(same) : "";
    return value.slice(same);
  };
  const join = (events: IrEvent[]): IrEvent[] => {
    const out: IrEvent[] = [];
    for (const event of events) {
      switch (event.type) {
        case "start":
          if (event.usage) upstream = event.usage;
          break;
        case "usage":
          upstream = event.usage;
          out.push(usage(event.usage));
          break;
        case "part_start":
          if (!joined && event.part.type === "text") {
            joined = true;
            indexes.set(event.index, transcript.openText!);
          } else {
            joined = true;
            indexes.set(event.index, next);
            out.push({ ...event, index: next++ });
          }
          break;
        case "text_delta": {
          const value = text(event.text);
          if (value !== "") out.push({ ...event, index: indexOf(event.index), text: value });
          break;
        }
        case "refusal_delta":
        case "reasoning_delta":
        case "reasoning_opaque":
        case "arguments_delta":
        case "part_end":
          out.push({ ...event, index: indexOf(event.index) });
          break;
        default:
          out.push(event);
      }
    }
    return out;
  };
  const indexOf = (index: number) => indexes.get(index) ?? index;
  return {
    decode: (event) => join(inner.decode(event)),
    end: () => join(inner.end()),
    upstreamUsage: () => upstream,
  };
}
