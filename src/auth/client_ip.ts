/** The client's address: the peer, or X-Forwarded-For when the peer is a trusted proxy. */
import { perConfig } from "../config/per_config.ts";
import { anyCidrContains, type Cidr, type IpAddress, parseCidr, parseIp } from "./cidr.ts";

/** CIDRs written in the config, those that parse. */
export function parseCidrs(texts: readonly string[]): Cidr[] {
  return texts.map(parseCidr).filter((cidr): cidr is Cidr => cidr !== undefined);
}

/** `[server] trusted_proxies` as CIDRs, parsed once a config. */
export const trustedProxiesOf = perConfig((config) => parseCidrs(config.server.trusted_proxies));

/** The client's address. */
export function clientIp(
  peer: string | undefined,
  forwardedFor: string | null,
  trustedProxies: readonly Cidr[],
): IpAddress | undefined {
  return clientHop(peer, forwardedFor, trustedProxies)?.address;
}

/** The client's address as text, as it came (the peer's text when nothing parses). */
export function clientAddress(
  peer: string,
  forwardedFor: string | null,
  trustedProxies: readonly Cidr[],
): string {
  // Without trusted proxies (the usual), the peer is the client: nothing to parse.
  if (trustedProxies.length === 0 || !forwardedFor) return peer;
  return clientHop(peer, forwardedFor, trustedProxies)?.text ?? peer;
}

/**
 * Walks X-Forwarded-For from the right, past trusted proxies, to the first address
 * not trusted: only proxies we trust may speak for the client.
 */
function clientHop(
  peer: string | undefined,
  forwardedFor: string | null,
  trustedProxies: readonly Cidr[],
): { address: IpAddress; text: string } | undefined {
  const peerAddress = peer === undefined ? undefined : parseIp(peer);
  if (!peerAddress) return undefined;
  let hop = { address: peerAddress, text: peer! };
  if (!forwardedFor || !anyCidrContains(trustedProxies, hop.address)) return hop;
  const hops = forwardedFor.split(",").map((text) => text.trim()).filter(Boolean).reverse();
  for (const text of hops) {
    const address = parseIp(text);
    if (!address) return hop;
    hop = { address, text };
    if (!anyCidrContains(trustedProxies, address)) return hop;
  }
  return hop;
}
