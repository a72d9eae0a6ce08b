import assert from "node:assert/strict";
import { generateKeySecret, hashKeySecret } from "./keys.ts";
import { rememberSecretHashes } from "./secret_hashes.ts";

Deno.test("secret hashes: a remembered secret hashes as any other, and no secret takes another's hash", () => {
  const hashOf = rememberSecretHashes(3);
  const secrets = Array.from({ length: 5 }, () => generateKeySecret());
  // One character changed: the same length, remembered next to the original.
  const original = secrets[0]!;
  const neighbour = original.slice(0, -1) + (original.endsWith("A") ? "B" : "A");
  for (let round = 0; round < 3; round++) {
    for (const secret of [...secrets, neighbour, original, original]) {
      assert.equal(hashOf(secret), hashKeySecret(secret));
    }
  }
  assert.notEqual(hashOf(neighbour), hashOf(original));
});
