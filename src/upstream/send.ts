/** Turns an attempt into a Send: a POST to the channel, or the built-in echo. */
import type { EntryProtocol } from "../config/schema.ts";
import type { Attempt } from "../routing/router.ts";
import type { Send } from "./call.ts";
import { echoResponse } from "./echo.ts";
import type { HttpClient } from "./http1/client.ts";
import { loadTokenCounter } from "../protocols/token_count.ts";
import {
  type ClientHeaders,
  requestTemplates,
  type UpstreamOperation,
  upstreamRequest,
} from "./request.ts";
import { fromFetchResponse } from "./response.ts";

/** What a send needs beside the attempt. */
export interface SendOptions {
  attempt: Attempt;
  operation: UpstreamOperation;
  /** The protocol the echo channel should answer in. */
  entry: EntryProtocol;
  body: Record<string, unknown>;
  /** Bytes to send in place of `body`: the client's own, its model perhaps replaced. */
  raw?: Uint8Array;
  clientHeaders: ClientHeaders;
  search: string;
  stream: boolean;
  /** The attempt's `connect` timeout in milliseconds. */
  connectMs: number;
}

/** Builds Sends over the process's upstream client and a clock. */
export function createSender(
  client: HttpClient,
  now: () => number,
): (options: SendOptions) => Send {
  const templateOf = requestTemplates();
  return function sender(options) {
    const { attempt } = options;
    if (attempt.channel.protocol === "echo") {
      return async (signal) =>
        fromFetchResponse(echoResponse(options.entry, options.body, {
          signal,
          now,
          count: await loadTokenCounter(),
        }));
    }
    const template = templateOf(attempt.channel, options.operation, attempt.key, options.stream);
    const request = upstreamRequest(template, {
      body: options.raw ?? options.body,
      clientHeaders: options.clientHeaders,
      search: options.search,
    });
    return (signal) => client.post(request, { signal, connectMs: options.connectMs });
  };
}
