/** Authentication: the key from the headers, then every state check of the catalogue. */
import type { Config } from "../config/schema.ts";
import { GatewayError } from "../errors.ts";
import { anyCidrContains, type Cidr } from "./cidr.ts";
import { clientIp, parseCidrs, trustedProxiesOf } from "./client_ip.ts";
import { extractApiKey } from "./extract.ts";
import { rememberSecretHashes } from "./secret_hashes.ts";
import type { KeyLookup, KeyRecord, Principal } from "./principal.ts";

/** How the admin API and the dashboard have a key checked. */
export interface AuthenticateOptions {
  /** The stored hash of the key to check, instead of the headers' key (a session's key). */
  keyHash?: string;
  /** Lets a key whose token quota is used up through: it spends no tokens there. */
  quotaExempt?: boolean;
}

/** What authentication reads of a request. */
export interface AuthRequest {
  /** Its header fields: the key, and `X-Forwarded-For` from a trusted proxy. */
  headers: Pick<Headers, "get">;
  /** The TCP peer's address ("" when unknown). */
  remoteAddr: string;
  /** The config the request started with. */
  config: Config;
  /** A key the URL's query gave (Gemini's `?key=`), taken when no header carries one. */
  queryKey?: string;
}

/**
 * Verifies a request's key: its principal, or a rejected 401/403 GatewayError. The key is
 * the one the request's headers carry, unless `options` names another.
 */
export type Authenticate = (
  request: AuthRequest,
  options?: AuthenticateOptions,
) => Promise<Principal>;

/** Authentication over a key lookup (cached by the caller). */
export function authenticate(options: {
  lookup: KeyLookup;
  now: () => number;
}): Authenticate {
  const hashOf = rememberSecretHashes();
  // Key records are cached (key_cache.ts), so each allowlist is parsed once per lookup.
  const allowlists = new WeakMap<readonly string[], Cidr[]>();
  const allowlistOf = (texts: readonly string[]) => {
    let cidrs = allowlists.get(texts);
    if (!cidrs) allowlists.set(texts, cidrs = parseCidrs(texts));
    return cidrs;
  };
  return async function authenticate(request, admin) {
    if (admin?.keyHash !== undefined) {
      return principalOf(request, await options.lookup(admin.keyHash), admin);
    }
    const secret = extractApiKey(request.headers) ?? (request.queryKey?.trim() || undefined);
    if (!secret) {
      throw new GatewayError(
        401,
        "invalid_request",
        "Missing API key: send it as `Authorization: Bearer <key>` or as `x-api-key: <key>` " +
          "(Gemini clients: `x-goog-api-key: <key>`).",
      );
    }
    return principalOf(request, await options.lookup(hashOf(secret)), admin);
  };

  /** The principal of the key `found` for this request, once every check passed. */
  function principalOf(
    request: AuthRequest,
    key: KeyRecord | undefined,
    admin: AuthenticateOptions | undefined,
  ): Principal {
    const { config } = request;
    checkKeyState(key, options.now(), admin?.quotaExempt === true);
    if (!(key.group in config.groups)) {
      throw new GatewayError(
        403,
        "access_denied",
        `This key's group "${key.group}" is not configured on this gateway. Ask the operator to add it or move the key to another group.`,
      );
    }
    if (key.allowIps) {
      const address = clientIp(
        request.remoteAddr,
        request.headers.get("x-forwarded-for") ?? null,
        trustedProxiesOf(config),
      );
      if (!address || !anyCidrContains(allowlistOf(key.allowIps), address)) {
        throw new GatewayError(
          403,
          "access_denied",
          `Requests from this IP address are not allowed for this key: its IP allowlist is ${
            key.allowIps.join(", ")
          }.`,
        );
      }
    }
    return key;
  }
}

/**
 * Rejects a missing, revoked, disabled, expired or (unless `quotaExempt`) exhausted key, or a
 * disabled account.
 */
function checkKeyState(
  key: KeyRecord | undefined,
  now: number,
  quotaExempt: boolean,
): asserts key is KeyRecord {
  const reject = (why: string) => new GatewayError(401, "authentication_error", why);
  if (!key) {
    throw reject(
      "Invalid API key: no such key exists. Check that it was copied whole, with no spaces or line breaks.",
    );
  }
  if (key.revoked) throw reject("This API key has been revoked. Create a new key.");
  if (!key.enabled) throw reject("This API key is disabled. Ask the operator to enable it.");
  if (key.expiresAt !== null && key.expiresAt <= now) {
    throw reject(
      `This API key expired at ${new Date(key.expiresAt).toISOString()}. Create a new key.`,
    );
  }
  if (!key.accountEnabled) {
    throw new GatewayError(
      403,
      "access_denied",
      `The account "${key.accountName}" of this key is disabled. Ask the operator to enable it.`,
    );
  }
  if (!quotaExempt && key.quotaTokens !== null && key.usedTokens >= key.quotaTokens) {
    throw new GatewayError(
      401,
      "insufficient_user_quota",
      `This key's token quota is exhausted: it has used ${key.usedTokens} of ${key.quotaTokens} tokens. Ask the operator to raise the quota (\`tollgate key update ${key.id} --quota TOKENS\`).`,
    );
  }
}
