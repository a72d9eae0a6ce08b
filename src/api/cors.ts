/**
 * CORS for browser apps (`[server] cors_origins`): a page of an allowed origin may call the
 * API with a key, its preflight answered with the headers the SDKs send (whatever the
 * browser asks for: the SDKs add their own `x-stainless-*` and version headers). With no
 * origins configured, nothing is added and a preflight is a method the path does not take.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { GatewayEnv } from "./request_context.ts";

/** What a browser may read of an answer besides the simple headers. */
const EXPOSED = [
  "x-request-id",
  "server-timing",
  "retry-after",
  "x-ratelimit-limit-requests",
  "x-ratelimit-remaining-requests",
  "x-ratelimit-reset-requests",
  "x-ratelimit-limit-tokens",
  "x-ratelimit-remaining-tokens",
  "x-ratelimit-reset-tokens",
];

/** The allowed origin to answer `origin` with, under the configured list. */
export function allowedOrigin(origins: readonly string[], origin: string): string | null {
  if (origins.includes("*")) return "*";
  return origins.includes(origin) ? origin : null;
}

/** Hono's CORS over the origins of each request's config (a reload changes them). */
export function browserCors(): MiddlewareHandler<GatewayEnv> {
  const answer = cors({
    origin: (origin, c) =>
      allowedOrigin(
        (c.get("snapshot") as GatewayEnv["Variables"]["snapshot"]).config.server.cors_origins,
        origin,
      ),
    allowMethods: ["GET", "HEAD", "POST", "DELETE"],
    exposeHeaders: EXPOSED,
    maxAge: 600,
  });
  return function browserCors(c, next) {
    const origins = c.get("snapshot").config.server.cors_origins;
    if (origins.length === 0 || !c.req.header("origin")) return next();
    return answer(c, next);
  };
}
