import assert from "node:assert/strict";
import {
  generateKeyId,
  generateKeySecret,
  hashKeySecret,
  keyPrefix,
  randomBase62,
  timingSafeEqualText,
} from "./keys.ts";

Deno.test("generateKeySecret is sk- and 48 base62 characters, different each time", () => {
  const secrets = new Set<string>();
  for (let i = 0; i < 100; i++) {
    const secret = generateKeySecret();
    assert.match(secret, /^sk-[0-9A-Za-z]{48}$/);
    secrets.add(secret);
  }
  assert.equal(secrets.size, 100);
});

Deno.test("generateKeyId is key_ and 12 base62 characters", () => {
  assert.match(generateKeyId(), /^key_[0-9A-Za-z]{12}$/);
  assert.notEqual(generateKeyId(), generateKeyId());
});

Deno.test("randomBase62 uses the whole alphabet roughly evenly", () => {
  const counts = new Map<string, number>();
  const sample = randomBase62(62_000);
  assert.equal(sample.length, 62_000);
  for (const char of sample) counts.set(char, (counts.get(char) ?? 0) + 1);
  assert.equal(counts.size, 62);
  // Expected 1000 each; a modulo bias would push the first 8 characters to ~1240.
  for (const [char, count] of counts) assert.ok(count > 800 && count < 1200, `${char}: ${count}`);
});

Deno.test("hashKeySecret is SHA-256 hex", () => {
  assert.equal(
    hashKeySecret("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});

Deno.test("keyPrefix is the first 10 characters", () => {
  assert.equal(keyPrefix("sk-abcdefghijkl"), "sk-abcdefg");
});

Deno.test("timingSafeEqualText compares exactly", () => {
  assert.equal(timingSafeEqualText("abcd", "abcd"), true);
  assert.equal(timingSafeEqualText("abcd", "abce"), false);
  assert.equal(timingSafeEqualText("abcd", "abc"), false);
  assert.equal(timingSafeEqualText("", ""), true);
});
