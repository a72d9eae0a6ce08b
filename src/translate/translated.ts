/**
 * Translation between two protocols through the IR: the client's request decoded once
 * and encoded for the channel, the upstream's answer decoded and encoded for the
 * client, usage and produced text read off the IR as they pass.
 */
import type { EntryProtocol } from "../config/schema.ts";
import { orderedId } from "../ids.ts";
import type { GatewayError } from "../errors.ts";
import { asRecord } from "../protocols/json_read.ts";
import type { SseEvent } from "../protocols/sse.ts";
import type { Usage } from "../protocols/types.ts";
import type { ResponseEncodeContext } from "./codec.ts";
import { codecOf } from "./codecs.ts";
import { upstreamStreamError } from "./errors.ts";
import type { IrEvent, IrRequest, IrResponse } from "./ir.ts";
import type { StreamConverter, Translation, TranslatorOptions } from "./translation.ts";

/** The translation of a request toward a channel of another protocol. */
export function translated(options: TranslatorOptions, upstream: EntryProtocol): Translation {
  const client = codecOf(options.entry);
  const target = codecOf(upstream);
  let decoded: IrRequest | undefined;
  const request = (): IrRequest => {
    if (!decoded) {
      decoded = client.decodeRequest(options.request.body);
      for (const field of decoded.dropped) {
        options.drop(field, `no ${upstream} equivalent, and it does not change the answer`);
      }
      if (decoded.reasoning && !options.reasoning) {
        options.drop("reasoning", "the model is not marked `reasoning = true` in the config");
        delete decoded.reasoning;
      }
    }
    return decoded;
  };
  const answerContext = (): ResponseEncodeContext => ({
    model: options.request.model,
    request: request(),
    body: options.echo ?? options.request.body,
    requestId: options.requestId,
    // Ordered: a stored response is kept under its id (src/ids.ts).
    newId: options.newId ?? ((prefix) => orderedId(prefix, options.now())),
    now: options.now,
    includeUsage: asRecord(options.request.body.stream_options)?.include_usage === true,
    get inputTokensHint() {
      return options.inputTokensHint();
    },
  });

  return {
    upstream,
    upstreamBytes: () => undefined,
    upstreamBody: (upstreamModel) =>
      target.encodeRequest(request(), {
        model: upstreamModel,
        defaultMaxOutputTokens: options.defaultMaxOutputTokens,
        drop: options.drop,
        conversation: options.conversation,
      }),
    response({ json }) {
      const answer = target.decodeResponse(json);
      const encoded = client.encodeResponse(answer, answerContext());
      return {
        body: JSON.stringify(encoded),
        json: encoded,
        usage: answer.usage,
        outputText: () => responseText(answer),
      };
    },
    stream(): StreamConverter {
      const decoder = target.createStreamDecoder();
      const encoder = client.createStreamEncoder(answerContext());
      let usage: Usage | undefined;
      let text = "";
      let failure: GatewayError | undefined;
      const convert = (events: IrEvent[], out: SseEvent[]) => {
        for (const event of events) {
          if (failure) return;
          if (event.type === "error") {
            failure = upstreamStreamError(event.error, options.entry);
            out.push(...encoder.error(failure));
            return;
          }
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
      };
    },
  };
}

/** The produced text of a whole answer: text, refusals, reasoning and tool arguments. */
function responseText(answer: IrResponse): string {
  return answer.parts.map((part) =>
    part.type === "tool_call" ? part.arguments : "text" in part ? part.text : ""
  ).join("");
}
