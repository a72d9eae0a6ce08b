/**
 * What a refused request's record keeps of it (observability/refusal_log.ts), noted where
 * its error is rendered: the error's code and message, the client's address (behind a
 * trusted proxy, the one it names) and, for a key that authenticated nothing, the first
 * characters of that key. Never the secret, never the query (a `?key=` stays out).
 */
import type { Context } from "hono";
import { clientAddress, trustedProxiesOf } from "../auth/client_ip.ts";
import { extractApiKey } from "../auth/extract.ts";
import type { GatewayError } from "../errors.ts";
import { type GatewayEnv, peerAddress } from "./request_context.ts";

/** Characters of an unknown key a record keeps: `sk-` and four more at most. */
export const KEY_PREFIX_CHARS = 7;

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
