import assert from "node:assert/strict";
import { cidrContains, parseCidr, parseIp } from "./cidr.ts";

const cases: [string, string, boolean][] = [
  ["10.0.0.0/8", "10.1.2.3", true],
  ["10.0.0.0/8", "11.0.0.1", false],
  ["192.168.1.7", "192.168.1.7", true],
  ["192.168.1.7/32", "192.168.1.8", false],
  ["0.0.0.0/0", "8.8.8.8", true],
  ["2001:db8::/32", "2001:db8:1::5", true],
  ["2001:db8::/32", "2001:db9::1", false],
  ["::1/128", "::1", true],
  ["::/0", "fe80::1", true],
  ["10.0.0.0/8", "::ffff:10.9.9.9", true],
  ["::ffff:10.0.0.0/104", "10.1.1.1", true],
  ["fe80::/10", "10.0.0.1", false],
];

Deno.test("cidr: matches IPv4, IPv6 and IPv4-mapped addresses", () => {
  for (const [range, address, expected] of cases) {
    const cidr = parseCidr(range);
    const ip = parseIp(address);
    assert.ok(cidr && ip, `${range} / ${address} should parse`);
    assert.equal(cidrContains(cidr, ip), expected, `${address} in ${range}`);
  }
});

Deno.test("cidr: rejects malformed ranges and addresses", () => {
  for (
    const bad of ["10.0.0.256/8", "10.0.0.0/33", "1:2:3", "::1::2", "abc", "10.0.0.0/8/1", "::/129"]
  ) {
    assert.equal(parseCidr(bad), undefined, bad);
  }
  assert.equal(parseIp("1.2.3"), undefined);
  assert.deepEqual(parseIp("[::1]"), { family: 6, value: 1n });
});
