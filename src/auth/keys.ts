/** API key secrets: generation, hashing for storage, and constant-time comparison. */
import { hash } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
// The largest multiple of 62 that fits in a byte: bytes at or above it are
// rejected so that every character is equally likely (no modulo bias).
const UNBIASED_LIMIT = 248;

/** Returns `length` uniformly random base62 characters from the system CSPRNG. */
export function randomBase62(length: number): string {
  let out = "";
  const bytes = new Uint8Array(Math.min(1024, length + 16));
  while (out.length < length) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new key secret: `sk-` and 48 random base62 characters (about 285 bits). */
export function generateKeySecret(): string {
  return `sk-${randomBase62(48)}`;
}

/** A new key id: `key_` and 12 random base62 characters; public, shown in listings. */
export function generateKeyId(): string {
  return `key_${randomBase62(12)}`;
}

/**
 * The SHA-256 of a secret as lowercase hex: what the database stores instead of the
 * secret. Synchronous (node:crypto) because it runs on every request.
 */
export function hashKeySecret(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** The first 10 characters of a secret, stored so people can recognise a key in listings. */
export function keyPrefix(secret: string): string {
  return secret.slice(0, 10);
}

/** Compares two strings in time independent of where they differ (length may leak). */
export function timingSafeEqualText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) {
    diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  }
  return diff === 0;
}
