/**
 * Authentication (design.md's flow, after the body limit): the key a request carries, every
 * state check of the catalogue, and the caller noted on the request's record.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Authenticate, AuthenticateOptions } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { type GatewayEnv, peerAddress } from "./request_context.ts";

/**
 * Lets a request through with its key's principal (`c.get("principal")`), or refuses it
 * (401/403). With `queryKey` (Gemini's paths) the key may also come as `?key=`.
 */
export function authenticated(
  authenticate: Authenticate,
  options: { queryKey?: boolean } = {},
): MiddlewareHandler<GatewayEnv> {
  return async function authenticated(c, next) {
    const queryKey = options.queryKey ? c.req.query("key") : undefined;
    c.set("principal", await authenticateRequest(c, authenticate, undefined, queryKey));
    await next();
  };
}

/**
 * The principal of the key `c`'s request carries (or `options` names), noted on its record
 * for the request log; throws the refusal.
 */
export async function authenticateRequest(
  c: Context<GatewayEnv>,
  authenticate: Authenticate,
  options?: AuthenticateOptions,
  queryKey?: string,
): Promise<Principal> {
  const principal = await authenticate({
    headers: c.req.raw.headers,
    remoteAddr: peerAddress(c),
    config: c.get("snapshot").config,
    queryKey,
  }, options);
  const record = c.get("record");
  record.keyId = principal.id;
  record.account = principal.accountName;
  return principal;
}
