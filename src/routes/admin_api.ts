/**
 * The admin API (`/admin/api`, design.md): the admin service over HTTP, in the CLI's `--json`
 * shapes, with the CLI's flag names as query parameters and body fields. An admin key may
 * call all of it; any key may call `GET /me`. Its errors are the gateway's (OpenAI shape),
 * rendered by the app.
 */
import { type Context, Hono } from "hono";
import type { AdminService } from "../admin/service.ts";
import { GatewayError } from "../errors.ts";
import type { AlarmClock } from "../upstream/alarm_clock.ts";
import type { AdminEnv, Caller } from "../middleware/admin_access.ts";
import {
  AccountChangeSchema,
  KeyUpdateSchema,
  NewAccountSchema,
  NewKeySchema,
  optional,
  readInput,
  requestsQuery,
  TopUpSchema,
  usageQuery,
} from "./admin_api_input.ts";
import { adminAlertsApi, ALERT_ROUTES } from "./admin_alerts_api.ts";

/** Each path of the API and the methods it takes, for a 405's `Allow`. */
const ROUTES: readonly [RegExp, readonly string[]][] = [
  [/^\/(accounts|keys)$/, ["GET", "HEAD", "POST"]],
  [/^\/accounts\/[^/]+$/, ["PATCH"]],
  [/^\/accounts\/[^/]+\/topup$/, ["POST"]],
  [/^\/keys\/[^/]+$/, ["PATCH", "DELETE"]],
  [/^\/(usage|requests|channels|me)$/, ["GET", "HEAD"]],
  [/^\/requests\/[^/]+$/, ["GET", "HEAD"]],
  ...ALERT_ROUTES,
];

/** The admin API's routes, to mount at `/admin/api` behind `adminAccess`. */
export function adminApi(service: AdminService, clock: AlarmClock): Hono<AdminEnv> {
  const api = new Hono<AdminEnv>();
  const query = (c: Context<AdminEnv>) => new URL(c.req.url).searchParams;
  const context = (c: Context<AdminEnv>) => c.get("context");

  api.use(async function signedIn(c, next) {
    if (c.get("caller") === undefined) throw notSignedIn(c.get("sessionEnded"));
    await next();
  });
  api.get("/me", async (c) => {
    const { principal } = callerOf(c);
    const { model, since, until, bucket } = usageQuery(query(c));
    return c.json(await service.me(principal.id, { model, since, until, bucket }));
  });
  api.use(async function adminOnly(c, next) {
    if (!callerOf(c).principal.admin) throw notAdmin();
    await next();
  });

  api.get("/accounts", async (c) => c.json(await service.accounts.list()));
  api.post("/accounts", async (c) => {
    const body = await readInput(context(c), NewAccountSchema, clock);
    return c.json(await service.accounts.create(body), 201);
  });
  api.patch("/accounts/:name", async (c) => {
    const body = await readInput(context(c), AccountChangeSchema, clock);
    return c.json(await service.accounts.update(c.req.param("name"), body));
  });
  api.post("/accounts/:name/topup", async (c) => {
    const body = await readInput(context(c), TopUpSchema, clock);
    return c.json(await service.accounts.topUp(c.req.param("name"), body));
  });
  api.get("/keys", async (c) => {
    return c.json(await service.keys.list({ account: optional(query(c), "account") }));
  });
  api.post("/keys", async (c) => {
    const body = await readInput(context(c), NewKeySchema, clock);
    return c.json(await service.keys.create(body), 201);
  });
  api.patch("/keys/:id", async (c) => {
    const body = await readInput(context(c), KeyUpdateSchema, clock);
    return c.json(await service.keys.update(c.req.param("id"), body));
  });
  api.delete("/keys/:id", async (c) => c.json(await service.keys.revoke(c.req.param("id"))));
  api.get("/usage", async (c) => c.json(await service.usage(usageQuery(query(c)))));
  api.get("/requests", async (c) => c.json(await service.requests(requestsQuery(query(c)))));
  api.get("/requests/:id", async (c) => {
    const id = c.req.param("id");
    const request = await service.request(id);
    if (!request) {
      throw new GatewayError(404, "not_found", `No request with id "${id}" in the ledger.`);
    }
    return c.json(request);
  });
  api.get("/channels", (c) => c.json(service.channels()));
  api.route("/", adminAlertsApi(service, clock));

  api.all("/*", (c) => {
    const path = c.req.path.replace(/^\/admin\/api/, "");
    const allow = ROUTES.find(([pattern]) => pattern.test(path))?.[1];
    if (allow === undefined) {
      throw new GatewayError(
        404,
        "not_found",
        `Unknown path ${c.req.method} ${c.req.path}: the admin API serves /admin/api/accounts, ` +
          "/keys, /usage, /requests, /channels and /me.",
      );
    }
    throw new GatewayError(
      405,
      "method_not_allowed",
      `${c.req.path} takes ${allow.join(" or ")}, not ${c.req.method}.`,
      { headers: { allow: allow.join(", ") } },
    );
  });
  return api;
}

/** The caller `signedIn` let through. */
function callerOf(c: Context<AdminEnv>): Caller {
  return c.get("caller")!;
}

/** 401: no key and no session in force. */
export function notSignedIn(sessionEnded: string | undefined): GatewayError {
  return new GatewayError(
    401,
    "invalid_request",
    sessionEnded ??
      "Missing API key: send an admin key as `Authorization: Bearer <key>` or as " +
        "`x-api-key: <key>`, or sign in to the dashboard at /admin.",
  );
}

/** 403: a key that is not an admin key. */
export function notAdmin(): GatewayError {
  return new GatewayError(
    403,
    "access_denied",
    "This key is not an admin key: the admin API and the dashboard's admin pages need one " +
      "(`tollgate key create --admin`, or `tollgate key update KEY_ID --admin`). " +
      "GET /admin/api/me answers any key with its own usage.",
  );
}
