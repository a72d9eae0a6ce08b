/** Turns an attempt into a Send: an HTTP request to the channel, or the built-in echo. */
import type { EntryProtocol } from "../config/schema.ts";
import type { Attempt } from "../routing/router.ts";
import type { Send } from "./call.ts";
import { echoResponse } from "./echo.ts";
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
}

/** Builds Sends over a fetch function and a clock. */
export function createSender(
  fetchFn: typeof fetch,
  now: () => number,
): (options: SendOptions) => Send {
  return function sender(options) {
    const { attempt } = options;
    if (attempt.channel.protocol === "echo") {
      return (signal) =>
        Promise.resolve(echoResponse(options.entry, options.body, { signal, now }));
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
    return (signal) =>
      fetchFn(request.url, {
        method: "POST",
        headers: request.headers,
        body: request.body,
        signal,
      });
  };
}
