/**
 * Builds tollgate's Hono app from its dependencies (nothing here is module-level state):
 * the routes of design.md's HTTP surface, each request's context, and the one place
 * errors are rendered. The server (server.ts) serves it with `Deno.serve`; tests call
 * `app.request()` or serve it themselves.
 */
import { type Context, Hono } from "hono";
import { authenticate } from "./auth/authenticate.ts";
import { cacheKeyLookup } from "./auth/key_cache.ts";
import type { KeyLookup } from "./auth/principal.ts";
import type { Accounting } from "./billing/accounting.ts";
import type { EntryProtocol } from "./config/schema.ts";
import type { ConfigSnapshot } from "./config/store.ts";
import { asGatewayError, errorResponse, GatewayError } from "./errors.ts";
import { describeError, type Logger } from "./log.ts";
import { headerLimits } from "./api/header_limits.ts";
import { hostHeader } from "./api/host_header.ts";
import { browserCors } from "./api/cors.ts";
import {
  type GatewayEnv,
  type KeyRoute,
  type RequestContext,
  requestContext,
} from "./api/request_context.ts";
import { countTokensRoute } from "./api/count_tokens.ts";
import { listModels, retrieveModel } from "./api/models.ts";
import { allowedMethods, pathNotFound } from "./api/not_found.ts";
import { relayRoute } from "./api/relay.ts";
import { deleteResponse, listInputItems, retrieveResponse } from "./api/responses.ts";
import type { StoredResponses } from "./stored/stored_responses.ts";
import type { AdminService } from "./admin/service.ts";
import type { Sessions } from "./admin/sessions.ts";
import { adminRoutes } from "./api/admin.ts";
import { bodyTooLarge } from "./api/body.ts";
import { createRouter, type Router } from "./routing/router.ts";
import { createObserver, type Observer } from "./observability/observer.ts";
import { healthz, readyz } from "./api/health.ts";
import { metricsRoute } from "./api/metrics.ts";
import { createSender } from "./relay/send.ts";
import { checkForwardedHeaders } from "./upstream/request.ts";
import type { HttpClient } from "./upstream/http1/client.ts";
import { watchShutdown } from "./clock/shutdown_watch.ts";
import { AlarmClock } from "./clock/alarm_clock.ts";
import type { Limiter } from "./limits/limiter.ts";
import { createMemoryLimiter } from "./limits/memory_limiter.ts";
import { protocolOf } from "./protocols/index.ts";

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

/** A route: a request's response (or a thrown GatewayError). */
type Route = (context: RequestContext) => Response | Promise<Response>;

/** The tollgate app: routes of design.md's HTTP surface over the given dependencies. */
export function createApp(deps: AppDeps): App {
  const now = deps.now ?? Date.now;
  const router = deps.router ?? createRouter({ now, random: deps.random });
  const observer = deps.observer ?? createObserver();
  const relayDeps = {
    router,
    accounting: deps.accounting,
    limiter: deps.limiter ?? createMemoryLimiter({ now }),
    sender: createSender(deps.upstream, now),
    log: deps.log,
    now,
    random: deps.random ?? Math.random,
    shutdown: deps.shutdownSignal && watchShutdown(deps.shutdownSignal),
    observer,
    // One timer for the deadlines and keep-alives of every exchange of the app.
    clock: deps.clock ?? new AlarmClock(),
  };
  const auth = authenticate({ lookup: cacheKeyLookup(deps.lookupKey, now), now });
  const withKey = (route: KeyRoute): Route => async (context) =>
    route(context, await auth(context));
  const entryPoint = (entry: EntryProtocol, route: KeyRoute) =>
    handler(exposed(entry, withBody(forwardable(withKey(route)))));

  const app = new Hono<GatewayEnv>();
  app.use(requestContext({
    config: deps.config,
    now,
    report: (context) => observer.finished(context.record, context.snapshot.config.server),
  }));
  app.use(hostHeader());
  app.use(headerLimits());
  app.use("/v1/*", browserCors());
  app.onError((error, c) => failed(c.get("context"), error));
  // Not thrown: Hono calls this outside the middleware's error handling.
  app.notFound((c) => {
    const context = c.get("context");
    const { path, request } = context;
    const allow = allowedMethods(path);
    if (allow.length === 0 || allow.includes(request.method)) {
      return failed(context, pathNotFound(path, request.method));
    }
    return failed(
      context,
      new GatewayError(
        405,
        "method_not_allowed",
        `${path} takes ${allow.join(" or ")}, not ${request.method}.`,
        { headers: { allow: allow.join(", ") }, messagesType: "invalid_request_error" },
      ),
    );
  });

  // GET routes answer HEAD as well (Hono sends their headers without the body).
  app.get("/healthz", handler(healthz()));
  app.get("/readyz", handler(readyz({ router, databaseReady: deps.databaseReady })));
  app.get("/metrics", handler(metricsRoute(observer.metrics)));
  app.get("/v1/models", handler(withKey(listModels(router))));
  const retrieve = retrieveModel(router);
  app.get("/v1/models/:id", (c) => {
    const id = c.req.param("id");
    return withKey((context, principal) => retrieve(context, principal, id))(c.get("context"));
  });
  const { chat, messages } = { chat: protocolOf("chat"), messages: protocolOf("messages") };
  app.post("/v1/chat/completions", entryPoint("chat", relayRoute(chat, relayDeps)));
  const { responses } = deps;
  app.post(
    "/v1/responses",
    entryPoint("responses", relayRoute(protocolOf("responses"), { ...relayDeps, responses })),
  );
  if (responses) {
    const stored =
      (route: (store: StoredResponses, id: string) => KeyRoute) => (c: Context<GatewayEnv>) =>
        exposed("responses", withKey(route(responses, c.req.param("id")!)))(c.get("context"));
    app.get("/v1/responses/:id", stored(retrieveResponse));
    app.delete("/v1/responses/:id", stored(deleteResponse));
    app.get("/v1/responses/:id/input_items", stored(listInputItems));
  }
  app.post("/v1/messages", entryPoint("messages", relayRoute(messages, relayDeps)));
  app.post(
    "/v1/messages/count_tokens",
    entryPoint("messages", countTokensRoute(messages, relayDeps)),
  );
  if (deps.admin) {
    app.route(
      "/admin",
      adminRoutes({
        ...deps.admin,
        authenticate: auth,
        log: deps.log,
        now,
        clock: relayDeps.clock,
      }),
    );
  }
  return app;

  /** The response of an error, logged when it is tollgate's fault. */
  function failed(context: RequestContext, error: unknown): Response {
    const gatewayError = asGatewayError(error);
    if (gatewayError.status === 500) {
      deps.log.error("request failed", {
        request_id: context.requestId,
        code: gatewayError.code,
        error: describeError(gatewayError.cause ?? gatewayError),
      });
    }
    return errorResponse(gatewayError, context.shape, context.requestId);
  }
}

/** A Hono handler for a route of the request's context. */
function handler(route: Route) {
  return (c: Context<GatewayEnv>) => route(c.get("context"));
}

/** 404 for an entry point the config does not expose (checked per request: config reloads). */
function exposed(entry: EntryProtocol, route: Route): Route {
  return function exposed(context) {
    const enabled = context.snapshot.config.server.entry_points;
    if (!enabled.includes(entry)) {
      throw new GatewayError(
        404,
        "not_found",
        `The ${entry} entry point is not enabled on this gateway; enabled: ${
          enabled.join(", ") || "none"
        }.`,
      );
    }
    return route(context);
  };
}

/**
 * 400 before authentication for a forwarded header (`anthropic-version`, `anthropic-beta`,
 * `openai-beta`) no upstream could be sent: the client's fault, never a channel's.
 */
function forwardable(route: Route): Route {
  return function forwardable(context) {
    checkForwardedHeaders(context.headers);
    return route(context);
  };
}

/** 413 before authentication for a body whose declared size is over the limit (design.md's flow). */
function withBody(route: Route): Route {
  return function bodyLimit(context) {
    const limit = context.snapshot.config.server.max_body_bytes;
    const declared = Number(context.headers.get("content-length") ?? 0);
    if (declared > limit) throw bodyTooLarge(limit);
    return route(context);
  };
}
