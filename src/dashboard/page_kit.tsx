/**
 * What the dashboard's routes share: a page rendered in the viewer's time zone, an action of
 * the service whose refusal is shown on the page, the recent requests of a key, an account
 * or a model, and what a finished action says (`?done=`).
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { Child } from "hono/jsx";
import type { AdminService } from "../admin/service.ts";
import type { Sessions } from "../admin/sessions.ts";
import type { Authenticate } from "../auth/authenticate.ts";
import type { Logger } from "../log.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import type { KeyJson } from "../admin/keys.ts";
import { GatewayError } from "../errors.ts";
import type { AdminEnv } from "../api/admin_access.ts";
import { ZoneContext } from "./figures.tsx";
import { RECENT, type Recent } from "./recent.tsx";
import { TimeZone, ZONE_COOKIE } from "./time_zone.ts";

/** What the pages are built from. */
export interface DashboardDeps {
  service: AdminService;
  sessions: Sessions;
  authenticate: Authenticate;
  log: Logger;
  now: () => number;
  /** The app's timer, for the deadline of a form's body. */
  clock: AlarmClock;
}

/** A dashboard route's context. */
export type PageContext = Context<AdminEnv>;

/** The viewer's time zone: the browser's, as the page's script wrote it in a cookie. */
export function zoneOf(c: PageContext): TimeZone {
  return TimeZone.of(getCookie(c, ZONE_COOKIE));
}

/** The answer of a page, its times in the viewer's zone. */
export function render(c: PageContext, page: Child, status = 200): Response | Promise<Response> {
  return c.html(
    <ZoneContext.Provider value={zoneOf(c)}>{page}</ZoneContext.Provider>,
    status as 200,
  );
}

/**
 * Runs an action of the service: its result, or the message and status of the refusal it
 * met (a value that cannot be used, a name taken, ...). Anything else is thrown on.
 */
export async function attempt<T>(
  action: () => Promise<T>,
): Promise<[T, undefined, 200] | [undefined, string, 400]> {
  try {
    return [await action(), undefined, 200];
  } catch (error) {
    if (!(error instanceof GatewayError) || error.status >= 500) throw error;
    return [undefined, error.message, error.status as 400];
  }
}

/** The newest requests and failures of a key, an account or a model. */
export async function recentOf(
  service: AdminService,
  filter: { key?: string; account?: string; model?: string },
): Promise<Recent> {
  const [requests, failures] = await Promise.all([
    service.requests({ ...filter, limit: RECENT }),
    service.requests({ ...filter, status: "failed", limit: RECENT }),
  ]);
  return { requests, failures };
}

/** A key as messages name it: `"laptop" (key_…)`, or its id alone. */
export function keyLabel(key: Pick<KeyJson, "id" | "name">): string {
  return key.name ? `"${key.name}" (${key.id})` : key.id;
}

/** What a finished action says on the page it returns to, by `?done=`; `name` names what it did it to. */
const DONE: Record<string, (name: string) => string> = {
  disable: (key) => `Key ${key} is disabled.`,
  enable: (key) => `Key ${key} is enabled.`,
  revoke: (key) => `Key ${key} is revoked for good.`,
  update: (key) => `Key ${key} is saved.`,
  created: (name) => `Account ${name} is created.`,
  topup: (name) => `Account ${name} is topped up.`,
  adjust: (name) => `Account ${name} is adjusted.`,
  budget: (name) => `The budget of account ${name} is saved.`,
  tested: () => "A test event was sent.",
  enabled: (name) => `Account ${name} is enabled.`,
  disabled: (name) => `Account ${name} is disabled.`,
};

/** What a page says once `done` is done to `name`. */
export function doneText(done: string, name: string): string | undefined {
  return Object.hasOwn(DONE, done) ? DONE[done]!(name) : undefined;
}

/** The message of the page's `?done=`, naming what `?name=` names. */
export function doneMessage(c: PageContext): string | undefined {
  const query = new URL(c.req.url).searchParams;
  return doneText(query.get("done") ?? "", query.get("name") ?? "");
}
