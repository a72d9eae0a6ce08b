/**
 * Standard Webhooks v1 signatures (https://www.standardwebhooks.com): `webhook-signature`
 * is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}` keyed
 * with the secret's bytes (the base64 after `whsec_`), made with Web Crypto. The timestamp
 * is signed too, so a receiver can refuse a captured delivery replayed later.
 */

const ENCODER = new TextEncoder();

/** The headers of one signed delivery. */
export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** The secret's key bytes: the base64 after `whsec_` (a bare base64 secret is taken too). */
export function secretBytes(secret: string): Uint8Array<ArrayBuffer> {
  const text = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Signs with a secret's HMAC key, imported once per secret. */
export function webhookSigner(): (
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
) => Promise<SignedHeaders> {
  const keys = new Map<string, Promise<CryptoKey>>();
  const keyOf = (secret: string) => {
    let key = keys.get(secret);
    if (!key) {
      key = crypto.subtle.importKey(
        "raw",
        secretBytes(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      keys.set(secret, key);
    }
    return key;
  };
  return async (secret, id, timestampSeconds, body) => {
    const signed = ENCODER.encode(`${id}.${timestampSeconds}.${body}`);
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyOf(secret), signed));
    return {
      "webhook-id": id,
      "webhook-timestamp": String(timestampSeconds),
      "webhook-signature": `v1,${btoa(String.fromCharCode(...mac))}`,
    };
  };
}
