/**
 * The forwarded-header check, before authentication: a header tollgate forwards upstream
 * (`anthropic-version`, `anthropic-beta`, `openai-beta`) with a value no upstream could be
 * sent is the client's 400, never a channel's failure.
 */
import type { MiddlewareHandler } from "hono";
import { checkForwardedHeaders } from "../upstream/request.ts";
import type { GatewayEnv } from "./request_context.ts";

/** Refuses a request whose forwarded headers could not be sent upstream. */
export function forwardedHeaders(): MiddlewareHandler<GatewayEnv> {
  return function forwardedHeaders(c, next) {
    checkForwardedHeaders(c.req.raw.headers);
    return next();
  };
}
