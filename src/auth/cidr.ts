/** IPv4 and IPv6 addresses and CIDR ranges, for allowlists and trusted proxies. */

/** A parsed CIDR range: address family, network bits and prefix length. */
export interface Cidr {
  family: 4 | 6;
  network: bigint;
  prefix: number;
}

/** An address as a family and a number; IPv4-mapped IPv6 addresses become IPv4. */
export interface IpAddress {
  family: 4 | 6;
  value: bigint;
}

/** Parses an IPv4 or IPv6 address (brackets and zone ids allowed); undefined if invalid. */
export function parseIp(text: string): IpAddress | undefined {
  const address = text.trim().replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  if (address.includes(":")) return parseIpv6(address);
  const v4 = parseIpv4(address);
  return v4 === undefined ? undefined : { family: 4, value: v4 };
}

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function parseIpv6(text: string): IpAddress | undefined {
  let head = text;
  let tailV4: bigint | undefined;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    tailV4 = parseIpv4(text.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    head = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (s: string) => (s === "" ? [] : s.split(":"));
  const left = groupsOf(halves[0] ?? "");
  const right = halves.length === 2 ? groupsOf(halves[1] ?? "") : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...left, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...right];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  if (tailV4 !== undefined) value = (value & ~0xffffffffn) | tailV4;
  if (value >> 32n === 0xffffn) return { family: 4, value: value & 0xffffffffn };
  return { family: 6, value };
}

/** Parses `address/prefix` (or a bare address as a single-host range); undefined if invalid. */
export function parseCidr(text: string): Cidr | undefined {
  const [addressText, prefixText, ...rest] = text.trim().split("/");
  if (rest.length > 0 || addressText === undefined) return undefined;
  const address = parseIp(addressText);
  if (!address) return undefined;
  const bits = address.family === 4 ? 32 : 128;
  // A mapped IPv6 range like ::ffff:10.0.0.0/104 is kept in IPv4 terms.
  const mappedOffset = address.family === 4 && addressText.includes(":") ? 96 : 0;
  let prefix = bits;
  if (prefixText !== undefined) {
    if (!/^\d{1,3}$/.test(prefixText)) return undefined;
    prefix = Number(prefixText) - mappedOffset;
    if (prefix < 0 || prefix > bits) return undefined;
  }
  const shift = BigInt(bits - prefix);
  return { family: address.family, network: (address.value >> shift) << shift, prefix };
}

/** Whether an address lies in a range. */
export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  if (cidr.family !== address.family) return false;
  const shift = BigInt((cidr.family === 4 ? 32 : 128) - cidr.prefix);
  return (address.value >> shift) === (cidr.network >> shift);
}

/** Whether an address lies in any of the ranges. */
export function anyCidrContains(cidrs: readonly Cidr[], address: IpAddress): boolean {
  return cidrs.some((cidr) => cidrContains(cidr, address));
}
