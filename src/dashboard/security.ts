/**
 * What every answer under /admin carries against other sites, through Hono's `secureHeaders`:
 * a Content-Security-Policy that lets a page load only the gateway's own files (no inline
 * script or style, no framing), no content sniffing, no referrer beyond this origin (the
 * same-origin check of a form post reads `Origin`, which a stricter policy would blank); and
 * no caching of pages and answers that hold accounts and keys. Strict-Transport-Security is
 * left to whoever terminates TLS: tollgate is often reached over plain HTTP on loopback.
 */
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/** The dashboard's Content-Security-Policy, directive by directive. */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  objectSrc: ["'none'"],
};

/** The dashboard's Content-Security-Policy, as the header says it. */
export const CONTENT_SECURITY_POLICY = Object.entries(CSP_DIRECTIVES)
  .map(([name, values]) => `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${values}`)
  .join("; ");

/** The headers above (Hono's secure headers, and `cache-control: no-store` by default). */
export function securityHeaders(): MiddlewareHandler[] {
  return [
    secureHeaders({
      contentSecurityPolicy: CSP_DIRECTIVES,
      xContentTypeOptions: true,
      xFrameOptions: "DENY",
      referrerPolicy: "same-origin",
      crossOriginOpenerPolicy: "same-origin",
      strictTransportSecurity: false,
    }),
    noStore(),
  ];
}

/** `cache-control: no-store` on every answer that sets no cache-control (a cacheable asset does). */
export function noStore(): MiddlewareHandler {
  return async function noStore(c, next) {
    await next();
    if (!c.res.headers.has("cache-control")) c.res.headers.set("cache-control", "no-store");
  };
}
