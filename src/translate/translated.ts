/**
 * Translation between two protocols through the IR: the client's request decoded once
 * and encoded for the channel, the upstream's answer decoded and encoded for the
 * client, usage and produced text read off the IR as they pass.
 */
import { orderedId } from "../ids.ts";
import type { Codec, ResponseEncodeContext } from "./codec.ts";
import type { IrRequest, IrResponse } from "./ir.ts";
import { irStreamConverter } from "./ir_stream.ts";
import { Transcript } from "./transcript.ts";
import type { Translation, TranslatorOptions } from "./translation.ts";

/** The translation of a request toward a channel of another protocol. */
export function translated(
  options: TranslatorOptions,
  target: Codec,
  request: () => IrRequest,
): Translation {
  const client = options.entry;
  return {
    upstream: target,
    upstreamBytes: () => undefined,
    upstreamBody: (upstreamModel) =>
      target.encodeRequest(request(), {
        model: upstreamModel,
        defaultMaxOutputTokens: options.defaultMaxOutputTokens,
        drop: options.drop,
        conversation: options.conversation,
      }),
    response({ json }, upstreamModel) {
      const answer = target.decodeResponse(json);
      const encoded = client.encodeResponse(
        answer,
        answerContext(options, request(), upstreamModel),
      );
      return {
        body: JSON.stringify(encoded),
        json: encoded,
        usage: answer.usage,
        outputText: () => responseText(answer),
      };
    },
    stream: (upstreamModel, track) =>
      irStreamConverter(
        target.createStreamDecoder(),
        client.createStreamEncoder(answerContext(options, request(), upstreamModel)),
        client,
        track ? new Transcript() : undefined,
        options.redact,
      ),
  };
}

/**
 * What the client's answers are encoded with: they name `model` (the serving upstream's
 * id) and take fresh ids from `newId` (by default ordered by time: a stored response is
 * kept under its id, src/ids.ts).
 */
export function answerContext(
  options: TranslatorOptions,
  request: IrRequest,
  model: string,
  newId = options.newId ?? ((prefix: string) => orderedId(prefix, options.now())),
): ResponseEncodeContext {
  return {
    model,
    request,
    body: options.echo ?? options.request.body,
    requestId: options.requestId,
    newId,
    now: options.now,
    get inputTokensHint() {
      return options.inputTokensHint();
    },
  };
}

/** The produced text of a whole answer: text, refusals, reasoning and tool arguments. */
function responseText(answer: IrResponse): string {
  return answer.parts.map((part) =>
    part.type === "tool_call" ? part.arguments : "text" in part ? part.text : ""
  ).join("");
}
