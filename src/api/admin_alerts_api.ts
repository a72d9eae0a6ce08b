/**
 * The admin API's budget and alert endpoints (design.md): an account's adjustments and
 * history, the alert events with their deliveries, and a test event. Mounted by
 * admin_api.ts behind its admin check; their inputs are checked by zod as the rest of the
 * API's are.
 */
import { Hono } from "hono";
import type { AdminService } from "../admin/service.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import type { AdminEnv } from "./admin_access.ts";
import { AdjustSchema, AlertsQuerySchema, AlertTestSchema, validBody } from "./admin_api_input.ts";
import { validQuery } from "./query.ts";

/** The alert events a list shows when the query does not say. */
const DEFAULT_ALERTS = 100;

/** The routes, to mount on the admin API after its admin check. */
export function adminAlertsApi(service: AdminService, clock: AlarmClock): Hono<AdminEnv> {
  const api = new Hono<AdminEnv>();
  api.post("/accounts/:name/adjust", validBody(AdjustSchema, clock), async (c) => {
    return c.json(await service.accounts.adjust(c.req.param("name"), c.req.valid("json")));
  });
  api.get("/accounts/:name/history", async (c) => {
    return c.json(await service.accounts.history(c.req.param("name")));
  });
  api.get("/alerts", validQuery(AlertsQuerySchema), async (c) => {
    const { limit = DEFAULT_ALERTS } = c.req.valid("query");
    return c.json(await service.alerts.list({ limit }));
  });
  api.post("/alerts/test", validBody(AlertTestSchema, clock), async (c) => {
    return c.json(await service.alerts.test(c.req.valid("json")));
  });
  return api;
}
