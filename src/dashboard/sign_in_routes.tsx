/**
 * Signing in and out of the dashboard: the form takes an API key (any key that may be used;
 * one whose token quota is used up too) and opens a session, the cookie's; signing out ends
 * it. Every other page asks for a sign-in when the request brings no caller.
 */
import type { Hono } from "hono";
import type { Sessions } from "../admin/sessions.ts";
import type { Authenticate } from "../auth/authenticate.ts";
import { hashKeySecret } from "../auth/keys.ts";
import { GatewayError } from "../errors.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import {
  type AdminEnv,
  checkSameOrigin,
  forgetSession,
  rememberSession,
} from "../api/admin_access.ts";
import { authenticateRequest } from "../api/authenticated.ts";
import { given, readForm } from "./forms.ts";
import { SignInPage } from "./sign_in.tsx";

/** Adds the sign-in and sign-out routes to `pages`, then the gate of every later route. */
export function signInRoutes(
  pages: Hono<AdminEnv>,
  deps: { sessions: Sessions; authenticate: Authenticate; now: () => number; clock: AlarmClock },
): void {
  const query = (url: string) => new URL(url).searchParams;
  pages.get("/sign-in", (c) => {
    if (c.get("caller")) return c.redirect("/admin", 303);
    return c.html(<SignInPage next={safeNext(query(c.req.url).get("next"))} />);
  });
  pages.post("/sign-in", async (c) => {
    // Signing a browser in to someone else's key is an attack too: same origin only.
    checkSameOrigin(c);
    const form = await readForm(c, deps.clock);
    const next = safeNext(form.get("next"));
    const secret = given(form, "key");
    if (secret === undefined) {
      return c.html(<SignInPage next={next} error="Enter an API key." />, 400);
    }
    try {
      const key = await authenticateRequest(c, deps.authenticate, {
        keyHash: hashKeySecret(secret),
        quotaExempt: true,
      });
      rememberSession(c, await deps.sessions.open(key.id), deps.now());
      return c.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof GatewayError) || error.status >= 500) throw error;
      return c.html(<SignInPage next={next} error={error.message} />, error.status as 401);
    }
  });
  pages.post("/sign-out", async (c) => {
    const session = c.get("caller")?.session;
    if (session !== undefined) await deps.sessions.end(session);
    forgetSession(c);
    return c.redirect("/admin/sign-in", 303);
  });

  pages.use(async function signedIn(c, next) {
    if (c.get("caller") !== undefined) return await next();
    const url = new URL(c.req.url);
    const page = c.req.method === "GET" ? url.pathname + url.search : "/admin";
    // 200, not 401: a browser reports a page's 401 as an error, though this page is the remedy.
    return c.html(<SignInPage next={safeNext(page)} error={c.get("sessionEnded")} />);
  });
}

/** Where sign-in may send the browser: a dashboard page, nowhere else. */
function safeNext(next: string | null | undefined): string {
  if (
    !next || !/^\/admin(\/[\w\-/.%:@~]*)?(\?[^\\\s]*)?$/.test(next) ||
    next.startsWith("/admin/sign")
  ) {
    return "/admin";
  }
  return next;
}
