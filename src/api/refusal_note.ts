/**
 * What a refused request's record keeps of it (observability/refusal_log.ts), noted where
 * its error is rendered: the error's code and message, the client's address (behind a
 * trusted proxy, the one it names) and, for a key that authenticated nothing, the first
 * characters of that key. Never the secret, never the query (a `?key=` stays out).
 */
import type { Context } from "hono";
import { anyCidrContains, type Cidr, parseCidr, parseIp } from "../auth/cidr.ts";
import { extractApiKey } from "../auth/extract.ts";
import { perConfig } from "../config/per_config.ts";
import type { Config } from "../config/schema.ts";
import type { GatewayError } from "../errors.ts";
import { type GatewayEnv, peerAddress } from "./request_context.ts";

/** Characters of an unknown key a record keeps: `sk-` and four more at most. */
export const KEY_PREFIX_CHARS = 7;

const trustedProxiesOf = perConfig((config: Config) =>
  config.server.trusted_proxies.map(parseCidr).filter((cidr): cidr is Cidr => cidr !== undefined)
);

/** Notes `error` as the refusal the request ends in, with its caller's address and key prefix. */
export function noteRefusal(c: Context<GatewayEnv>, error: GatewayError): void {
  const record = c.get("record");
  if (!record) return;
  record.refusal = { code: error.code, reason: error.message };
  const headers = c.req.raw.headers;
  record.clientAddress = clientAddress(
    peerAddress(c),
    headers.get("x-forwarded-for"),
    trustedProxiesOf(c.get("snapshot").config),
  );
  if (record.keyId === undefined) record.keyPrefix = unknownKeyPrefix(headers);
}

/** The first characters of the key the headers carry (a key that was not known). */
export function unknownKeyPrefix(headers: Pick<Headers, "get">): string | undefined {
  const key = extractApiKey(headers);
  if (!key) return undefined;
  // Half the key at most: a short "key" (a typo, a name) is not kept whole either.
  const chars = Math.min(KEY_PREFIX_CHARS, Math.floor(key.length / 2));
  return chars > 0 ? `${key.slice(0, chars)}…` : undefined;
}

/**
 * The client's address as text: the peer's, or behind trusted proxies the first address of
 * `X-Forwarded-For` (from the right) that is not one (auth/client_ip.ts's rule).
 */
export function clientAddress(
  peer: string,
  forwardedFor: string | null,
  trusted: readonly Cidr[],
): string {
  // Without trusted proxies (the usual), the peer is the client: nothing to parse.
  if (trusted.length === 0 || !forwardedFor) return peer;
  let text = peer;
  let address = parseIp(peer);
  if (!address || !forwardedFor || !anyCidrContains(trusted, address)) return text;
  const hops = forwardedFor.split(",").map((hop) => hop.trim()).filter(Boolean).reverse();
  for (const hop of hops) {
    address = parseIp(hop);
    if (!address) return text;
    text = hop;
    if (!anyCidrContains(trusted, address)) return text;
  }
  return text;
}
