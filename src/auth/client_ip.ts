/** The client's address: the peer, or X-Forwarded-For when the peer is a trusted proxy. */
import { anyCidrContains, type Cidr, type IpAddress, parseIp } from "./cidr.ts";

/**
 * Walks X-Forwarded-For from the right, past trusted proxies, to the first address
 * not trusted: only proxies we trust may speak for the client.
 */
export function clientIp(
  peer: string | undefined,
  forwardedFor: string | null,
  trustedProxies: readonly Cidr[],
): IpAddress | undefined {
  let address = peer === undefined ? undefined : parseIp(peer);
  if (!address || !forwardedFor || !anyCidrContains(trustedProxies, address)) return address;
  const hops = forwardedFor.split(",").map((hop) => hop.trim()).filter(Boolean).reverse();
  for (const hop of hops) {
    const hopAddress = parseIp(hop);
    if (!hopAddress) return address;
    address = hopAddress;
    if (!anyCidrContains(trustedProxies, address)) return address;
  }
  return address;
}
