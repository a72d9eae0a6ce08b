/**
 * What every answer under /admin carries against other sites: a Content-Security-Policy
 * that lets a page load only the gateway's own files (no inline script or style, no
 * framing), no content sniffing, no referrer beyond this origin (the same-origin check of
 * a form post reads `Origin`, which a stricter policy would blank), and no caching of
 * pages and answers that hold accounts and keys.
 */
import type { MiddlewareHandler } from "hono";

/** The dashboard's Content-Security-Policy. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

/** Sets the headers above on every answer (a cacheable asset keeps its own cache-control). */
export function securityHeaders(): MiddlewareHandler {
  return async function securityHeaders(c, next) {
    await next();
    const headers = c.res.headers;
    headers.set("content-security-policy", CONTENT_SECURITY_POLICY);
    headers.set("x-content-type-options", "nosniff");
    headers.set("x-frame-options", "DENY");
    headers.set("referrer-policy", "same-origin");
    headers.set("cross-origin-opener-policy", "same-origin");
    if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
  };
}
