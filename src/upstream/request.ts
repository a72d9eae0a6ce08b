/** Builds the HTTP request for one upstream attempt: URL, headers and body. */
import type { ChannelConfig, EntryProtocol } from "../config/schema.ts";
import type { Http1Request } from "./http1/request.ts";
import { checkForwardedValue, type ClientHeaders, FORWARDED_HEADERS } from "./forwarded_headers.ts";

/** The upstream operations tollgate performs; count_tokens is a messages-only side door. */
export type UpstreamOperation = EntryProtocol | "count_tokens";

const PATHS: Record<UpstreamOperation, string> = {
  chat: "/chat/completions",
  responses: "/responses",
  messages: "/messages",
  count_tokens: "/messages/count_tokens",
};

const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/** A ready upstream request (the body already serialized; header names lowercase). */
export type UpstreamRequest = Http1Request;

/**
 * What every request of one channel, key, operation and streaming shares: its URL but
 * for the query, its headers but for the client's forwarded ones, and which of those
 * the client may set.
 */
export interface RequestTemplate {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The client headers forwarded: the family's, but for those the channel sets itself. */
  readonly forwarded: readonly string[];
  /** The anthropic-version sent when the client sets none, if the channel sets none either. */
  readonly defaultVersion: string | undefined;
  /** Whether the client's query goes along (the messages protocol's `?beta=true`). */
  readonly keepsQuery: boolean;
}

/** The template of requests on `channel` with `key` (its headers frozen: see Http1Request). */
export function requestTemplate(
  channel: ChannelConfig,
  operation: UpstreamOperation,
  key: string | undefined,
  stream: boolean,
): RequestTemplate {
  const base = (channel.base_url ?? "").replace(/\/+$/, "");
  const anthropic = channel.protocol === "messages";
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
  };
  if (anthropic) {
    if (key) headers["x-api-key"] = key;
  } else if (key) {
    headers.authorization = `Bearer ${key}`;
  }
  // The channel's own headers win over everything, the client's forwarded ones included.
  for (const [name, value] of Object.entries(channel.headers)) headers[name.toLowerCase()] = value;
  return {
    url: `${base}${PATHS[operation]}`,
    headers: Object.freeze(headers),
    forwarded: FORWARDED_HEADERS[anthropic ? "anthropic" : "openai"].filter((name) =>
      headers[name] === undefined
    ),
    defaultVersion: anthropic && headers["anthropic-version"] === undefined
      ? DEFAULT_ANTHROPIC_VERSION
      : undefined,
    keepsQuery: anthropic,
  };
}

/**
 * Templates made once a channel (of one config: a reload makes new channels) and kept
 * for the channel's life: each request then sets only what is its own.
 */
export function requestTemplates(): typeof requestTemplate {
  const made = new WeakMap<ChannelConfig, Map<string, RequestTemplate>>();
  return (channel, operation, key, stream) => {
    let byKind = made.get(channel);
    if (!byKind) made.set(channel, byKind = new Map());
    const kind = `${operation} ${stream} ${key ?? ""}`;
    let template = byKind.get(kind);
    if (!template) byKind.set(kind, template = requestTemplate(channel, operation, key, stream));
    return template;
  };
}

/**
 * The request of one attempt from its template: the body, the client's query and headers.
 * Throws 400 (forwarded_headers.ts) for a forwarded header that could not be sent, should
 * one have passed the relay's own check: the client's fault, never a channel's failure.
 */
export function upstreamRequest(template: RequestTemplate, options: {
  /** The body to serialize, or bytes to send as they are. */
  body: Record<string, unknown> | Uint8Array;
  clientHeaders: ClientHeaders;
  /** The client's query string (with `?`), kept for the messages protocol's `?beta=true`. */
  search: string;
}): UpstreamRequest {
  let own: Record<string, string> | undefined;
  for (const name of template.forwarded) {
    const value = options.clientHeaders.get(name);
    if (!value) continue;
    checkForwardedValue(name, value);
    (own ??= {})[name] = value;
  }
  const { defaultVersion } = template;
  if (defaultVersion && !own?.["anthropic-version"]) {
    (own ??= {})["anthropic-version"] = defaultVersion;
  }
  return {
    url: template.keepsQuery && options.search ? template.url + options.search : template.url,
    headers: template.headers,
    own,
    body: options.body instanceof Uint8Array ? options.body : JSON.stringify(options.body),
  };
}
