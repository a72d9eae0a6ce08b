/**
 * Who calls the admin API and the dashboard: a key sent as `Authorization: Bearer` or
 * `x-api-key`, or the dashboard's session cookie. A session's key is checked again on every
 * request, as a header's key is (a key disabled, revoked or expired ends its sessions' use at
 * once, and the session with it); a key whose token quota is used up may still come in, to
 * read its own usage. A request that changes something on the strength of the
 * cookie must come from the dashboard's own origin: `SameSite=Strict` and this check stand in
 * for a CSRF token. A key sent in a header needs no such check: a browser never adds one.
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Sessions } from "../admin/sessions.ts";
import type { Authenticate } from "../auth/authenticate.ts";
import { anyCidrContains, type Cidr, parseCidr, parseIp } from "../auth/cidr.ts";
import { extractApiKey } from "../auth/extract.ts";
import type { Principal } from "../auth/principal.ts";
import { GatewayError } from "../errors.ts";
import { authenticateRequest } from "./authenticated.ts";
import { type GatewayEnv, type GatewayVariables, peerAddress } from "./request_context.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "tollgate_session";

/** The cookie's path: the browser sends it to the dashboard and its API, nowhere else. */
const COOKIE_PATH = "/admin";

/** Methods that change nothing: a cookie may carry them from anywhere the browser allows. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** An authenticated caller: its key, and its session's token when the cookie brought it. */
export interface Caller {
  principal: Principal;
  session?: string;
}

/** The Hono environment of the admin routes: the request's variables and its caller. */
export interface AdminEnv {
  Bindings: GatewayEnv["Bindings"];
  Variables: GatewayVariables & {
    /** Absent when the request brought no key and no session in force. */
    caller?: Caller;
    /** Why a session the request brought no longer holds (its key was disabled, ...). */
    sessionEnded?: string;
  };
}

/** Finds the caller of each admin request (see the module's comment); throws for a bad key. */
export function adminAccess(options: {
  authenticate: Authenticate;
  sessions: Sessions;
}): MiddlewareHandler<AdminEnv> {
  return async function adminAccess(c, next) {
    if (extractApiKey(c.req.raw.headers) !== undefined) {
      const principal = await authenticateRequest(c, options.authenticate, { quotaExempt: true });
      c.set("caller", { principal });
      return await next();
    }
    const token = getCookie(c, SESSION_COOKIE);
    if (token === undefined) return await next();
    const session = await options.sessions.resume(token);
    if (session === undefined) {
      c.set("sessionEnded", "Your session has ended: sign in again.");
      forgetSession(c);
      return await next();
    }
    if (!SAFE_METHODS.has(c.req.method)) checkSameOrigin(c);
    try {
      const principal = await authenticateRequest(c, options.authenticate, {
        keyHash: session.keyHash,
        quotaExempt: true,
      });
      c.set("caller", { principal, session: token });
    } catch (error) {
      if (!(error instanceof GatewayError) || error.status >= 500) throw error;
      await options.sessions.end(token);
      forgetSession(c);
      c.set("sessionEnded", `Your session has ended: ${error.message}`);
    }
    return await next();
  };
}

/**
 * Refuses (403) a request that did not come from a page of this server's own origin, as the
 * browser tells it in `Origin` and `Sec-Fetch-Site`: a form another site posts here.
 */
export function checkSameOrigin(c: Context<GatewayEnv>): void {
  const site = c.req.header("sec-fetch-site") ?? null;
  const origin = c.req.header("origin") ?? null;
  const sameSite = site === null || site === "same-origin";
  const sameOrigin = origin === null ? site === "same-origin" : origin === ownOrigin(c);
  if (!sameSite || !sameOrigin) {
    throw new GatewayError(
      403,
      "access_denied",
      `Refused a change sent from ${origin ?? "an unknown origin"} with the dashboard's ` +
        `session: open the dashboard at ${ownOrigin(c)}/admin and make it there, or send ` +
        "the admin key as `Authorization: Bearer <key>`.",
    );
  }
}

/**
 * This server's origin as the browser sees it: the scheme (a trusted proxy's
 * `X-Forwarded-Proto` when it terminates TLS) and the `Host` the request was sent to.
 */
export function ownOrigin(c: Context<GatewayEnv>): string {
  const url = new URL(c.req.url);
  return `${schemeOf(c, url)}://${url.host}`;
}

/** Sets the cookie of a session just opened (`Secure` when the browser reached us over HTTPS). */
export function rememberSession(
  c: Context<AdminEnv>,
  session: { token: string; expiresAt: number },
  now: number,
): void {
  setCookie(c, SESSION_COOKIE, session.token, {
    httpOnly: true,
    sameSite: "Strict",
    path: COOKIE_PATH,
    secure: schemeOf(c, new URL(c.req.url)) === "https",
    maxAge: Math.max(0, Math.floor((session.expiresAt - now) / 1000)),
  });
}

/** Tells the browser to drop the session cookie. */
export function forgetSession(c: Context<AdminEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: COOKIE_PATH });
}

function schemeOf(c: Context<GatewayEnv>, url: URL): "http" | "https" {
  const forwarded = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim();
  if ((forwarded === "https" || forwarded === "http") && fromTrustedProxy(c)) {
    return forwarded;
  }
  return url.protocol === "https:" ? "https" : "http";
}

/** Whether the peer is one of `[server] trusted_proxies`, whose forwarded headers are believed. */
function fromTrustedProxy(c: Context<GatewayEnv>): boolean {
  const peer = parseIp(peerAddress(c));
  const proxies = c.get("snapshot").config.server.trusted_proxies
    .map(parseCidr)
    .filter((cidr): cidr is Cidr => cidr !== undefined);
  return peer !== undefined && anyCidrContains(proxies, peer);
}
