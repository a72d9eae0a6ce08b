/** Turns an attempt into a Send: a POST to the channel, or the built-in echo. */
import type { Config } from "../config/schema.ts";
import type { Protocol } from "../protocols/index.ts";
import { type AnswerLimits, answerLimits } from "../upstream/http1/limits.ts";
import type { Attempt } from "../routing/router.ts";
import type { Send } from "../upstream/call.ts";
import { echoResponse } from "../upstream/echo.ts";
import { echoEmbeddings } from "../upstream/echo_embeddings.ts";
import { isEcho } from "../routing/transport.ts";
import type { HttpClient } from "../upstream/http1/client.ts";
import { loadTokenCounter } from "../tokens/token_count.ts";
import {
  type ClientHeaders,
  requestTemplates,
  type UpstreamOperation,
  upstreamRequest,
} from "../upstream/request.ts";
import { fromFetchResponse } from "../upstream/response.ts";
import { perConfig } from "../config/per_config.ts";

/** What a send needs beside the attempt. */
export interface SendOptions {
  attempt: Attempt;
  operation: UpstreamOperation;
  /** The protocol the echo channel should answer in. */
  entry: Protocol;
  body: Record<string, unknown>;
  /** Bytes to send in place of `body`: the client's own, its model perhaps replaced. */
  raw?: Uint8Array;
  clientHeaders: ClientHeaders;
  search: string;
  stream: boolean;
  /** The attempt's `connect` timeout in milliseconds. */
  connectMs: number;
  /** What the upstream's answer may take (`[server]` limits). */
  limits: Readonly<AnswerLimits>;
  /** The request's input tokens when admission counted them (the echo channel's usage). */
  inputTokens?: number;
}

/** The answer limits of a config's `[server]` keys, made once a config. */
export const answerLimitsOf: (config: Config) => Readonly<AnswerLimits> = perConfig((config) =>
  answerLimits({
    maxAnswerBytes: config.server.max_answer_bytes,
    maxAnswerHeadBytes: config.server.max_answer_head_bytes,
    maxChunkExtensionBytes: config.server.max_chunk_extension_bytes,
    maxTrailerBytes: config.server.max_trailer_bytes,
  })
);

/** Builds Sends over the process's upstream client and a clock. */
export function createSender(
  client: HttpClient,
  now: () => number,
): (options: SendOptions) => Send {
  const templateOf = requestTemplates();
  return function sender(options) {
    const { attempt } = options;
    if (isEcho(attempt.channel) && options.operation === "embeddings") {
      return async () =>
        fromFetchResponse(echoEmbeddings(options.body, {
          model: attempt.upstreamModel,
          count: await loadTokenCounter(),
        }));
    }
    if (isEcho(attempt.channel)) {
      return async (signal) =>
        fromFetchResponse(echoResponse(options.entry, options.body, {
          signal,
          now,
          count: await loadTokenCounter(),
          inputTokens: options.inputTokens,
          route: { model: attempt.upstreamModel, stream: options.stream },
        }));
    }
    const template = templateOf({
      channel: attempt.channel,
      operation: options.operation,
      key: attempt.key,
      model: attempt.upstreamModel,
      stream: options.stream,
    });
    const request = upstreamRequest(template, {
      body: options.raw ?? options.body,
      clientHeaders: options.clientHeaders,
      search: options.search,
    });
    return (signal) =>
      client.post(request, { signal, connectMs: options.connectMs, limits: options.limits });
  };
}
