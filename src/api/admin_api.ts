/**
 * The admin API (`/admin/api`, design.md): the admin service over HTTP, in the CLI's `--json`
 * shapes, with the CLI's flag names as query parameters and body fields (checked by zod
 * before a handler runs: admin_api_input.ts). An admin key may call all of it; any key may
 * call `GET /me`. Its errors are the gateway's (OpenAI shape), rendered by the app; a path it
 * does not serve is 404, a method it does not take 405 (the app's `methodNotAllowed`).
 */
import { type Context, Hono } from "hono";
import type { AdminService } from "../admin/service.ts";
import type { AlarmClock } from "../clock/alarm_clock.ts";
import { errorResponse, GatewayError } from "../errors.ts";
import type { AdminEnv, Caller } from "./admin_access.ts";
import {
  AccountChangeSchema,
  ChannelTestSchema,
  KeysQuerySchema,
  KeyUpdateSchema,
  NewAccountSchema,
  NewKeySchema,
  RequestsQuerySchema,
  TopUpSchema,
  UsageQuerySchema,
  validBody,
} from "./admin_api_input.ts";
import { adminAlertsApi } from "./admin_alerts_api.ts";
import { noteRefusal } from "./refusal_note.ts";
import { validQuery } from "./query.ts";

/** The admin API's routes, to mount at `/admin/api` behind `adminAccess`. */
export function adminApi(service: AdminService, clock: AlarmClock): Hono<AdminEnv> {
  const api = new Hono<AdminEnv>();

  api.use(async function signedIn(c, next) {
    if (c.get("caller") === undefined) throw notSignedIn(c.get("sessionEnded"));
    await next();
  });
  api.get("/me", validQuery(UsageQuerySchema), async (c) => {
    const { model, since, until, bucket } = c.req.valid("query");
    return c.json(await service.me(callerOf(c).principal.id, { model, since, until, bucket }));
  });
  api.use(async function adminOnly(c, next) {
    if (!callerOf(c).principal.admin) throw notAdmin();
    await next();
  });

  api.get("/accounts", async (c) => c.json(await service.accounts.list()));
  api.post("/accounts", validBody(NewAccountSchema, clock), async (c) => {
    return c.json(await service.accounts.create(c.req.valid("json")), 201);
  });
  api.patch("/accounts/:name", validBody(AccountChangeSchema, clock), async (c) => {
    return c.json(await service.accounts.update(c.req.param("name"), c.req.valid("json")));
  });
  api.post("/accounts/:name/topup", validBody(TopUpSchema, clock), async (c) => {
    return c.json(await service.accounts.topUp(c.req.param("name"), c.req.valid("json")));
  });
  api.get("/keys", validQuery(KeysQuerySchema), async (c) => {
    return c.json(await service.keys.list(c.req.valid("query")));
  });
  api.post("/keys", validBody(NewKeySchema, clock), async (c) => {
    return c.json(await service.keys.create(c.req.valid("json")), 201);
  });
  api.patch("/keys/:id", validBody(KeyUpdateSchema, clock), async (c) => {
    return c.json(await service.keys.update(c.req.param("id"), c.req.valid("json")));
  });
  api.delete("/keys/:id", async (c) => c.json(await service.keys.revoke(c.req.param("id"))));
  api.get("/usage", validQuery(UsageQuerySchema), async (c) => {
    return c.json(await service.usage(c.req.valid("query")));
  });
  api.get("/requests", validQuery(RequestsQuerySchema), async (c) => {
    return c.json(await service.requests(c.req.valid("query")));
  });
  api.get("/requests/:id", async (c) => c.json(await service.requireRequest(c.req.param("id"))));
  api.get("/channels", async (c) => c.json(await service.channels()));
  api.route("/", adminAlertsApi(service, clock));
  api.post(
    "/channels/:name/test",
    validBody(ChannelTestSchema, clock, { optional: true }),
    async (c) => {
      const { model } = c.req.valid("json");
      return c.json(await service.checkChannel(c.req.param("name"), model));
    },
  );

  // Behind the caller's checks, as every path of the API is. Answered, not thrown: where
  // the path takes other methods, the app's `methodNotAllowed` makes it a 405.
  api.all("/*", (c) => {
    const unknown = new GatewayError(
      404,
      "not_found",
      `Unknown path ${c.req.method} ${c.req.path}: the admin API serves /admin/api/accounts, ` +
        "/keys, /usage, /requests, /channels (and /channels/{name}/test), /alerts and /me.",
    );
    noteRefusal(c, unknown);
    return errorResponse(unknown, c.get("errorShape"), c.get("requestId"));
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
