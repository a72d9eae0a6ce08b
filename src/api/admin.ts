/**
 * Everything under /admin: the dashboard's files, then the caller (a key or a session),
 * then the admin API (`/admin/api`, JSON) and the dashboard's pages. None of it goes through
 * the /v1 middleware (CORS, entry points); `[server] dashboard = false` turns all of it off.
 */
import { Hono } from "hono";
import { dashboardAssets } from "../dashboard/assets.ts";
import { type DashboardDeps, dashboardPages } from "../dashboard/routes.tsx";
import { securityHeaders } from "../dashboard/security.ts";
import { GatewayError } from "../errors.ts";
import { adminAccess, type AdminEnv } from "./admin_access.ts";
import { adminApi } from "./admin_api.ts";

/** The admin routes' dependencies: the admin service, sessions, and the app's authentication. */
export type AdminRoutesDeps = DashboardDeps;

/** The routes to mount at `/admin`. */
export function adminRoutes(deps: AdminRoutesDeps): Hono<AdminEnv> {
  const admin = new Hono<AdminEnv>();
  admin.use(async function dashboardEnabled(c, next) {
    if (!c.get("context").snapshot.config.server.dashboard) {
      throw new GatewayError(
        404,
        "not_found",
        "The dashboard and the admin API are turned off on this gateway ([server] dashboard = false).",
      );
    }
    await next();
  });
  admin.use(securityHeaders());
  admin.route("/", dashboardAssets());
  admin.use(adminAccess(deps));
  admin.route("/api", adminApi(deps.service, deps.clock));
  admin.route("/", dashboardPages(deps));
  return admin;
}
