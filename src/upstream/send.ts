/** Turns an attempt into a Send: an HTTP request to the channel, or the built-in echo. */
import type { EntryProtocol } from "../config/schema.ts";
import type { Attempt } from "../routing/router.ts";
import type { Send } from "./call.ts";
import { type ConnectWatch, createConnectWatch } from "./connect.ts";
import { echoResponse } from "./echo.ts";
import { loadTokenCounter } from "../protocols/token_count.ts";
import { buildUpstreamRequest, type UpstreamOperation } from "./request.ts";

/** What a send needs beside the attempt. */
export interface SendOptions {
  attempt: Attempt;
  operation: UpstreamOperation;
  /** The protocol the echo channel should answer in. */
  entry: EntryProtocol;
  body: Record<string, unknown>;
  clientHeaders: Headers;
  search: string;
  stream: boolean;
  /** The attempt's `connect` timeout in milliseconds. */
  connectMs: number;
}

/** Builds Sends over a fetch function, a clock and a connect watch (connect.ts). */
export function createSender(
  fetchFn: typeof fetch,
  now: () => number,
  connect: ConnectWatch = createConnectWatch(now),
): (options: SendOptions) => Send {
  return function sender(options) {
    const { attempt } = options;
    if (attempt.channel.protocol === "echo") {
      return async (signal) =>
        echoResponse(options.entry, options.body, {
          signal,
          now,
          count: await loadTokenCounter(),
        });
    }
    const request = buildUpstreamRequest({
      channel: attempt.channel,
      operation: options.operation,
      key: attempt.key,
      body: options.body,
      clientHeaders: options.clientHeaders,
      search: options.search,
      stream: options.stream,
    });
    return (signal) => {
      const response = fetchFn(request.url, {
        method: "POST",
        headers: request.headers,
        body: request.body,
        signal,
      }).then((answer) => {
        connect.reached(request.url);
        return answer;
      });
      // Whichever comes first: the answer, or the connect probe's failure.
      const probe = connect.reachable(request.url, options.connectMs);
      return probe ? Promise.race([response, probe.then(() => response)]) : response;
    };
  };
}
