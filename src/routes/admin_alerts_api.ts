/**
 * The admin API's budget and alert endpoints (design.md): an account's adjustments and
 * history, the alert events with their deliveries, and a test event. Mounted by
 * admin_api.ts behind its admin check.
 */
import { type Context, Hono } from "hono";
import * as z from "zod/mini";
import type { AdminService } from "../admin/service.ts";
import type { AdminEnv } from "../middleware/admin_access.ts";
import type { AlarmClock } from "../upstream/alarm_clock.ts";
import { optional, readInput } from "./admin_api_input.ts";

const text = z.string({ error: "a string" });
const usd = z.union([z.number(), z.string()], { error: "an amount of USD (a number)" });

/** `POST /admin/api/accounts/{name}/adjust`. */
export const AdjustSchema = z.object({ usd, reason: text }, { error: "a JSON object" });

/** `POST /admin/api/alerts/test`. */
export const AlertTestSchema = z.object(
  { webhook: z.optional(text) },
  { error: "a JSON object" },
);

/** The paths these routes serve and their methods, for admin_api.ts' 405s. */
export const ALERT_ROUTES: readonly [RegExp, readonly string[]][] = [
  [/^\/accounts\/[^/]+\/adjust$/, ["POST"]],
  [/^\/accounts\/[^/]+\/history$/, ["GET", "HEAD"]],
  [/^\/alerts$/, ["GET", "HEAD"]],
  [/^\/alerts\/test$/, ["POST"]],
];

/** The routes, to mount on the admin API after its admin check. */
export function adminAlertsApi(service: AdminService, clock: AlarmClock): Hono<AdminEnv> {
  const api = new Hono<AdminEnv>();
  const context = (c: Context<AdminEnv>) => c.get("context");
  api.post("/accounts/:name/adjust", async (c) => {
    const body = await readInput(context(c), AdjustSchema, clock);
    return c.json(await service.accounts.adjust(c.req.param("name"), body));
  });
  api.get("/accounts/:name/history", async (c) => {
    return c.json(await service.accounts.history(c.req.param("name")));
  });
  api.get("/alerts", async (c) => {
    const limit = optional(new URL(c.req.url).searchParams, "limit");
    return c.json(await service.alerts.list({ limit: limit ? Number(limit) || 100 : 100 }));
  });
  api.post("/alerts/test", async (c) => {
    const body = await readInput(context(c), AlertTestSchema, clock);
    return c.json(await service.alerts.test(body));
  });
  return api;
}
