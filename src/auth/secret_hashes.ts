/**
 * The SHA-256 of key secrets (keys.ts), remembering the last few: a client sends the same
 * key with every request, so its hash is kept rather than computed again each time. A
 * secret is matched against the remembered ones in constant time, as secrets are compared.
 */
import { hashKeySecret, timingSafeEqualText } from "./keys.ts";

/** How many distinct secrets are remembered (the most recent ones). */
const REMEMBERED = 8;

/** The hash of a secret, the last `size` secrets' hashes kept for their next request. */
export function rememberSecretHashes(size = REMEMBERED): (secret: string) => string {
  const secrets: string[] = [];
  const hashes: string[] = [];
  let next = 0;
  return (secret) => {
    let found = -1;
    // Every slot is compared: the time taken does not tell which one matched.
    for (let slot = 0; slot < secrets.length; slot++) {
      if (timingSafeEqualText(secrets[slot]!, secret) && found < 0) found = slot;
    }
    if (found >= 0) return hashes[found]!;
    const hash = hashKeySecret(secret);
    secrets[next] = secret;
    hashes[next] = hash;
    next = (next + 1) % size;
    return hash;
  };
}
