/** Builds the HTTP request for one upstream attempt: URL, headers and body. */
import type { ChannelConfig, EntryProtocol } from "../config/schema.ts";
import type { Http1Request } from "./http1/request.ts";

/** The upstream operations tollgate performs; count_tokens is a messages-only side door. */
export type UpstreamOperation = EntryProtocol | "count_tokens";

const PATHS: Record<UpstreamOperation, string> = {
  chat: "/chat/completions",
  responses: "/responses",
  messages: "/messages",
  count_tokens: "/messages/count_tokens",
};

/** Client headers forwarded upstream, by the channel's protocol family: versions and opt-ins, never credentials. */
const FORWARDED_HEADERS = {
  anthropic: ["anthropic-version", "anthropic-beta"],
  openai: ["openai-beta"],
};
const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/** A ready upstream request (the body already serialized; header names lowercase). */
export type UpstreamRequest = Http1Request;

/** The URL, headers and body of an attempt on `channel` with `key`. */
export function buildUpstreamRequest(options: {
  channel: ChannelConfig;
  operation: UpstreamOperation;
  key: string | undefined;
  /** The body to serialize, or bytes to send as they are. */
  body: Record<string, unknown> | Uint8Array;
  clientHeaders: ReadonlyMap<string, string>;
  /** The client's query string (with `?`), kept for the messages protocol's `?beta=true`. */
  search: string;
  stream: boolean;
}): UpstreamRequest {
  const { channel, operation, key, clientHeaders } = options;
  const base = (channel.base_url ?? "").replace(/\/+$/, "");
  const search = channel.protocol === "messages" ? options.search : "";
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: options.stream ? "text/event-stream" : "application/json",
  };
  const family = channel.protocol === "messages" ? "anthropic" : "openai";
  for (const name of FORWARDED_HEADERS[family]) {
    const value = clientHeaders.get(name);
    if (value) headers[name] = value;
  }
  if (channel.protocol === "messages") {
    headers["anthropic-version"] ??= DEFAULT_ANTHROPIC_VERSION;
    if (key) headers["x-api-key"] = key;
  } else if (key) {
    headers.authorization = `Bearer ${key}`;
  }
  for (const [name, value] of Object.entries(channel.headers)) headers[name.toLowerCase()] = value;
  return {
    url: `${base}${PATHS[operation]}${search}`,
    headers,
    body: options.body instanceof Uint8Array ? options.body : JSON.stringify(options.body),
  };
}
