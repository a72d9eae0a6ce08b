/**
 * Builds tollgate's Hono app from its dependencies (nothing here is module-level state):
 * the middleware every request passes (its variables, Host, header limits, 405s from the
 * routes themselves), the routes of design.md's HTTP surface each behind the middleware it
 * needs, and the one place errors are rendered. The server (server.ts) serves it with
 * `Deno.serve`; tests call `app.request()` or serve it themselves.
 */
import { type Context, Hono } from "hono";
import { methodNotAllowed } from "hono/method-not-allowed";
import type { AdminService } from "./admin/service.ts";
import type { Sessions } from "./admin/sessions.ts";
import { adminAccess, type AdminEnv } from "./api/admin_access.ts";
import { adminApi } from "./api/admin_api.ts";
import { authenticated } from "./api/authenticated.ts";
import { bodyLimit } from "./api/body.ts";
import { browserCors } from "./api/cors.ts";
import { countTokensHandler } from "./api/count_tokens.ts";
import { embeddingsHandler } from "./api/embeddings.ts";
import { exposed } from "./api/exposed.ts";
import { forwardedHeaders } from "./api/forwarded_headers.ts";
import { headerLimits } from "./api/header_limits.ts";
import { lazyRoutes } from "./api/lazy_routes.ts";
import { healthz, readyz } from "./api/health.ts";
import { hostHeader } from "./api/host_header.ts";
import { metricsRoute } from "./api/metrics.ts";
import {
  geminiMethod,
  listAnyModels,
  listGeminiModels,
  retrieveAnyModel,
  retrieveGeminiModel,
} from "./api/gemini.ts";
import { baseUrlMistake, methodNotAllowed as wrongMethod, pathNotFound } from "./api/not_found.ts";
import { noteRefusal } from "./api/refusal_note.ts";
import { relayHandler } from "./api/relay.ts";
import { type GatewayEnv, requestContext } from "./api/request_context.ts";
import {
  deleteResponse,
  inputItemsQuery,
  listInputItems,
  retrieveResponse,
} from "./api/responses.ts";
import { authenticate } from "./auth/authenticate.ts";
import { cacheKeyLookup } from "./auth/key_cache.ts";
import type { KeyLookup } from "./auth/principal.ts";
import type { Accounting } from "./billing/accounting.ts";
import { AlarmClock } from "./clock/alarm_clock.ts";
import { watchShutdown } from "./clock/shutdown_watch.ts";
import type { ConfigSnapshot } from "./config/store.ts";
import { dashboardAssets } from "./dashboard/assets.ts";
import type { DashboardDeps } from "./dashboard/page_kit.tsx";
import { securityHeaders } from "./dashboard/security.ts";
import { asGatewayError, errorResponse, GatewayError } from "./errors.ts";
import type { Limiter } from "./limits/limiter.ts";
import { createMemoryLimiter } from "./limits/memory_limiter.ts";
import { describeError, type Logger } from "./log.ts";
import { createObserver, type Observer } from "./observability/observer.ts";
import type { Telemetry } from "./observability/telemetry.ts";
import { type Protocol, protocolOf } from "./protocols/index.ts";
import { createSender } from "./relay/send.ts";
import { createRouter, type Router } from "./routing/router.ts";
import type { StoredResponses } from "./stored/stored_responses.ts";
import type { HttpClient } from "./upstream/http1/client.ts";

/** Everything the app is built from; tests pass their own. */
export interface AppDeps {
  config: { current(): ConfigSnapshot };
  lookupKey: KeyLookup;
  accounting: Accounting;
  log: Logger;
  now?: () => number;
  /** The client that reaches the channels; the server closes it when it stops. */
  upstream: HttpClient;
  random?: () => number;
  /** The clock of deadlines, keep-alives and retry pauses; the runtime's timers when absent. */
  clock?: AlarmClock;
  /** Aborted when the shutdown grace period is over: requests still running are ended. */
  shutdownSignal?: AbortSignal;
  /** Routing with its channel health; made from `now` and `random` when absent. */
  router?: Router;
  /** Where finished requests are reported (request log, metrics). */
  observer?: Observer;
  /** OpenTelemetry's spans and metrics (observability/telemetry.ts); none when absent. */
  telemetry?: Telemetry;
  /** Rate, token and concurrency limits; counted in this process's memory when absent. */
  limiter?: Limiter;
  /** Whether the database answers, for `/readyz`. */
  databaseReady?: () => Promise<boolean>;
  /** Stored responses of the responses API; none kept (nor resolved) when absent. */
  responses?: StoredResponses;
  /** The admin service and dashboard sessions behind /admin; no /admin routes when absent. */
  admin?: { service: AdminService; sessions: Sessions };
}

/** tollgate's app: a Hono app whose `fetch` the server hands each request. */
export type App = Hono<GatewayEnv>;

/** The tollgate app: routes of design.md's HTTP surface over the given dependencies. */
export function createApp(deps: AppDeps): App {
  const now = deps.now ?? Date.now;
  const router = deps.router ?? createRouter({ now, random: deps.random });
  const observer = deps.observer ?? createObserver();
  // One timer for the deadlines and keep-alives of every exchange of the app.
  const clock = deps.clock ?? new AlarmClock();
  const relayDeps = {
    router,
    accounting: deps.accounting,
    limiter: deps.limiter ?? createMemoryLimiter({ now }),
    sender: createSender(deps.upstream, now),
    log: deps.log,
    now,
    random: deps.random ?? Math.random,
    shutdown: deps.shutdownSignal && watchShutdown(deps.shutdownSignal),
    metrics: observer.metrics,
    clock,
  };
  const auth = authenticate({ lookup: cacheKeyLookup(deps.lookupKey, now), now });
  const authed = authenticated(auth);
  // Gemini's paths (and /v1/models, which Google's clients list) take the key as `?key=` too.
  const googleAuthed = authenticated(auth, { queryKey: true });

  const app = new Hono<GatewayEnv>();
  const telemetry = deps.telemetry;
  // A check before the handler returns `next()` where it need not await it: an async one
  // would hold a suspended frame and a promise for every request until its answer.
  app.use(requestContext({
    config: deps.config,
    now,
    started: telemetry && ((record) => telemetry.started(record)),
    report: (record, snapshot) => {
      observer.finished(record, snapshot.config.server);
      telemetry?.finished(record, snapshot.config);
    },
  }));
  app.use(methodNotAllowed({ app, onMethodNotAllowed: wrongMethodAnswer }));
  app.use(hostHeader());
  app.use(headerLimits());
  app.use("/v1/*", browserCors());
  app.use("/v1beta/*", browserCors());
  app.onError((error, c) => failed(c, error));
  // Answered, not thrown: `methodNotAllowed` turns it into a 405 where the path takes others.
  app.notFound((c) => errorOf(c, pathNotFound(c.req.path, c.req.method)));

  // GET routes answer HEAD as well (Hono sends their headers without the body).
  app.get("/healthz", healthz());
  app.get("/readyz", readyz({ router, databaseReady: deps.databaseReady }));
  app.get("/metrics", metricsRoute(observer.metrics));
  app.get("/v1/models", googleAuthed, listAnyModels(router));
  app.get("/v1/models/:id", googleAuthed, retrieveAnyModel(router));

  // Each entry point: exposure, the body limit and the forwarded-header check before the
  // key (design.md's flow), then its handler.
  const chat = protocolOf("chat");
  const responses = protocolOf("responses");
  const messages = protocolOf("messages");
  const entryPoint = (entry: Protocol) =>
    [
      exposed(entry),
      bodyLimit(),
      forwardedHeaders(),
      authed,
    ] as const;
  app.post("/v1/chat/completions", ...entryPoint(chat), relayHandler(chat, relayDeps));
  app.post(
    "/v1/responses",
    ...entryPoint(responses),
    relayHandler(responses, { ...relayDeps, responses: deps.responses }),
  );
  const store = deps.responses;
  app.get("/v1/responses/:id", exposed(responses), authed, retrieveResponse(store));
  app.delete("/v1/responses/:id", exposed(responses), authed, deleteResponse(store));
  app.get(
    "/v1/responses/:id/input_items",
    exposed(responses),
    authed,
    inputItemsQuery,
    listInputItems(store),
  );
  app.post("/v1/messages", ...entryPoint(messages), relayHandler(messages, relayDeps));
  app.post(
    "/v1/messages/count_tokens",
    ...entryPoint(messages),
    countTokensHandler(messages, relayDeps),
  );
  app.post(
    "/v1/embeddings",
    bodyLimit(),
    forwardedHeaders(),
    authed,
    embeddingsHandler(relayDeps),
  );
  // Gemini: a model's methods under both API versions its clients use, the list under v1beta
  // (under /v1 it is the list above, in Google's shape for a Google client).
  const gemini = protocolOf("gemini");
  const geminiCall = geminiMethod(relayDeps);
  for (const version of ["/v1beta", "/v1"]) {
    app.post(
      `${version}/models/:call`,
      exposed(gemini),
      bodyLimit(),
      forwardedHeaders(),
      googleAuthed,
      geminiCall,
    );
  }
  app.get("/v1beta/models", exposed(gemini), googleAuthed, listGeminiModels(router));
  app.get("/v1beta/models/:id", exposed(gemini), googleAuthed, retrieveGeminiModel(router));
  if (deps.admin) {
    app.route(
      "/admin",
      adminRoutes({ ...deps.admin, authenticate: auth, log: deps.log, now, clock }),
    );
  }
  return app;

  /** The response of an error, logged when it is tollgate's fault. */
  function failed(c: Context<GatewayEnv>, error: unknown): Response {
    const gatewayError = asGatewayError(error);
    if (gatewayError.status === 500) {
      deps.log.error("request failed", {
        request_id: c.get("requestId"),
        code: gatewayError.code,
        error: describeError(gatewayError.cause ?? gatewayError),
      });
    }
    return errorOf(c, gatewayError);
  }
}

/** An error as the request's shape renders it, with its request id; noted on its record. */
function errorOf(c: Context<GatewayEnv>, error: GatewayError): Response {
  noteRefusal(c, error);
  return errorResponse(error, c.get("errorShape"), c.get("requestId"));
}

/**
 * The 405 of a path whose routes take other methods; a base-URL mistake stays the 404 that
 * names it (`/v1/responses/responses` is no response's id).
 */
function wrongMethodAnswer(c: Context<GatewayEnv>, methods: string[]): Response {
  if (baseUrlMistake(c.req.path)) return c.res;
  return errorOf(c, wrongMethod(c.req.path, c.req.method, methods));
}

/**
 * Everything under /admin: the dashboard's files, then the caller (a key or a session),
 * then the admin API (`/admin/api`, JSON) and the dashboard's pages. None of it goes through
 * the /v1 middleware (CORS, entry points); `[server] dashboard = false` turns all of it off.
 */
function adminRoutes(
  deps: DashboardDeps & Parameters<typeof adminAccess>[0],
): Hono<AdminEnv> {
  const admin = new Hono<AdminEnv>();
  admin.use(function dashboardEnabled(c, next) {
    if (!c.get("snapshot").config.server.dashboard) {
      throw new GatewayError(
        404,
        "not_found",
        "The dashboard and the admin API are turned off on this gateway ([server] dashboard = false).",
      );
    }
    return next();
  });
  admin.use(...securityHeaders());
  admin.route("/", dashboardAssets());
  admin.use(adminAccess(deps));
  admin.route("/api", adminApi(deps.service, deps.clock));
  // The pages load with their first request (lazy_routes.ts), with the 404 and 405 answers
  // the app gives any other path.
  admin.all(
    "/*",
    lazyRoutes<AdminEnv>(async (pages) => {
      const { dashboardPages } = await import("./dashboard/routes.tsx");
      pages.use(methodNotAllowed({ app: pages, onMethodNotAllowed: wrongMethodAnswer }));
      pages.route("/admin", dashboardPages(deps));
      pages.notFound((c) => errorOf(c, pathNotFound(c.req.path, c.req.method)));
    }),
  );
  return admin;
}
