/**
 * Builds the HTTP request for one upstream attempt: URL, headers and body. A client header
 * forwarded upstream with a value that cannot go into an HTTP/1.1 head as tollgate writes
 * it (a control character, a character outside ASCII) is the client's 400, refused before
 * any channel is tried: never a 502, never a failure counted against a channel.
 */
import type { ChannelConfig } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { PROTOCOL_LIST, type ProtocolName, protocolOf } from "../protocols/index.ts";
import { FIELD_VALUE } from "./http1/fields.ts";
import type { Http1Request } from "./http1/request.ts";

/** What an upstream call asks of a channel: an answer, a token count, or embeddings. */
export type UpstreamOperation = "answer" | "count_tokens" | "embeddings";

/** The client's request headers, as far as forwarding reads them. */
export interface ClientHeaders {
  get(name: string): string | null | undefined;
}

/** A ready upstream request (the body already serialized; header names lowercase). */
export type UpstreamRequest = Http1Request;

/**
 * What every request of one channel, key, operation and streaming (and model, for a
 * protocol whose path names it) shares: its URL but for the query, its headers but for the
 * client's forwarded ones, and which of those the client may set.
 */
export interface RequestTemplate {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The client headers forwarded: the family's, but for those the channel sets itself. */
  readonly forwarded: readonly string[];
  /** A header sent when the client sets none, if the channel sets none either. */
  readonly defaultHeader: { readonly name: string; readonly value: string } | undefined;
  /** Whether the client's query goes along (the messages protocol's `?beta=true`). */
  readonly keepsQuery: boolean;
}

/** What one attempt asks of its channel. */
export interface UpstreamCall {
  channel: ChannelConfig;
  operation: UpstreamOperation;
  /** The channel key, if the channel has keys. */
  key: string | undefined;
  /** The model as the channel knows it (after `model_map`). */
  model: string;
  stream: boolean;
}

/** The wire of a channel's protocol (never the echo's: it is called over no wire). */
function wireOf(channel: ChannelConfig) {
  return protocolOf(channel.protocol as ProtocolName).upstream;
}

/** The template of requests of `call` (its headers frozen: see Http1Request). */
export function requestTemplate(
  { channel, operation, key, model, stream }: UpstreamCall,
): RequestTemplate {
  const wire = wireOf(channel);
  const base = (channel.base_url ?? "").replace(/\/+$/, "");
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: stream ? "text/event-stream" : "application/json",
  };
  const { credential } = wire;
  if (key) headers[credential.header] = credential.scheme ? `${credential.scheme} ${key}` : key;
  // The channel's own headers win over everything, the client's forwarded ones included.
  for (const [name, value] of Object.entries(channel.headers)) headers[name.toLowerCase()] = value;
  const fallback = wire.defaultHeader;
  const path = operation === "count_tokens"
    ? wire.countTokensPath?.(model)
    : operation === "embeddings"
    ? wire.embeddingsPath
    : wire.path(model, stream);
  if (path === undefined) throw new Error(`${channel.protocol} channels have no ${operation}`);
  return {
    url: base + path,
    headers: Object.freeze(headers),
    forwarded: wire.forwardedHeaders.filter((name) => headers[name] === undefined),
    defaultHeader: fallback && headers[fallback.name] === undefined ? fallback : undefined,
    keepsQuery: wire.keepsQuery,
  };
}

/**
 * Templates made once a channel (of one config: a reload makes new channels) and kept
 * for the channel's life: each request then sets only what is its own. A protocol whose
 * path names the model has a template for each model of the channel.
 */
export function requestTemplates(): typeof requestTemplate {
  const made = new WeakMap<ChannelConfig, Map<string, RequestTemplate>>();
  return (call) => {
    const { channel } = call;
    let byKind = made.get(channel);
    if (!byKind) made.set(channel, byKind = new Map());
    let kind = `${call.operation} ${call.stream} ${call.key ?? ""}`;
    if (wireOf(channel).modelInPath) kind += ` ${call.model}`;
    let template = byKind.get(kind);
    if (!template) byKind.set(kind, template = requestTemplate(call));
    return template;
  };
}

/** The request of one attempt from its template: the body, the client's query and headers. */
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
    // Checked by the relay already (checkForwardedHeaders); here too, so that a value that
    // got past it is still the client's 400 and not the upstream client's failure.
    checkForwardedValue(name, value);
    (own ??= {})[name] = value;
  }
  const fallback = template.defaultHeader;
  if (fallback && !own?.[fallback.name]) (own ??= {})[fallback.name] = fallback.value;
  return {
    url: template.keepsQuery && options.search ? template.url + options.search : template.url,
    headers: template.headers,
    own,
    body: options.body instanceof Uint8Array ? options.body : JSON.stringify(options.body),
  };
}

/** Every header a client may have forwarded, whichever channel serves it. */
const ANY_FAMILY: readonly string[] = [
  ...new Set(PROTOCOL_LIST.flatMap((protocol) => protocol.upstream.forwardedHeaders)),
];

/**
 * Throws 400 `invalid_request`, naming the header, when a client header tollgate forwards
 * (anthropic-version, anthropic-beta, openai-beta) has a value an upstream could not be
 * sent. The relay calls it before routing.
 */
export function checkForwardedHeaders(headers: ClientHeaders): void {
  for (const name of ANY_FAMILY) {
    const value = headers.get(name);
    if (value) checkForwardedValue(name, value);
  }
}

/** The first character a header value tollgate writes may not hold (FIELD_VALUE's complement). */
const UNSENDABLE = /[^\t\x20-\x7e]/u;

/** Throws the 400 of checkForwardedHeaders unless `value` can be sent as header `name`. */
function checkForwardedValue(name: string, value: string): void {
  if (FIELD_VALUE.test(value)) return;
  const found = UNSENDABLE.exec(value)!;
  const code = found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  throw new GatewayError(
    400,
    "invalid_request",
    `Header "${name}" cannot be forwarded upstream: its value has the character U+${code} ` +
      `at offset ${found.index}, and may hold only visible ASCII, spaces and tabs. ` +
      "Send the header without it.",
  );
}
