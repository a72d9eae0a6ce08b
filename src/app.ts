/** Builds tollgate's HTTP app from its dependencies; nothing here is module-level state. */
import { Hono } from "hono";
import type { AppEnv } from "./app_env.ts";
import { authenticate } from "./auth/authenticate.ts";
import { cacheKeyLookup } from "./auth/key_cache.ts";
import type { KeyLookup } from "./auth/principal.ts";
import type { Accounting } from "./billing/accounting.ts";
import type { EntryProtocol } from "./config/schema.ts";
import type { ConfigSnapshot } from "./config/store.ts";
import { asGatewayError, errorResponse, GatewayError } from "./errors.ts";
import { describeError, type Logger } from "./log.ts";
import { requestContext } from "./middleware/request_context.ts";
import { countTokensRoute } from "./routes/count_tokens.ts";
import { listModels, retrieveModel } from "./routes/models.ts";
import { pathNotFound } from "./routes/not_found.ts";
import { relayRoute } from "./routes/relay.ts";
import { bodyTooLarge, declaredBodySize } from "./relay/body.ts";
import { createRouter, type Router } from "./routing/router.ts";
import { createObserver, type Observer } from "./observability/observer.ts";
import { healthz, readyz } from "./routes/health.ts";
import { metricsRoute } from "./routes/metrics.ts";
import { createSender } from "./upstream/send.ts";
import type { HttpClient } from "./upstream/http1/client.ts";
import { watchShutdown } from "./upstream/shutdown_watch.ts";
import { AlarmClock } from "./upstream/alarm_clock.ts";
import type { Limiter } from "./limits/limiter.ts";
import { createMemoryLimiter } from "./limits/memory_limiter.ts";
import type { MiddlewareHandler } from "hono";

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
}

/** 404 for an entry point the config does not expose (checked per request: config reloads). */
function exposed(entry: EntryProtocol): MiddlewareHandler<AppEnv> {
  return async function exposed(c, next) {
    const enabled = c.get("snapshot").config.server.entry_points;
    if (!enabled.includes(entry)) {
      throw new GatewayError(
        404,
        "not_found",
        `The ${entry} entry point is not enabled on this gateway; enabled: ${
          enabled.join(", ") || "none"
        }.`,
      );
    }
    await next();
  };
}

/** 413 before authentication for a body whose declared size is over the limit (design.md's flow). */
function bodyLimit(): MiddlewareHandler<AppEnv> {
  return async function bodyLimit(c, next) {
    const limit = c.get("snapshot").config.server.max_body_bytes;
    if (declaredBodySize(c.req.raw) > limit) throw bodyTooLarge(limit);
    await next();
  };
}

/** The tollgate app: routes of design.md's HTTP surface over the given dependencies. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
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
    shutdown: deps.shutdownSignal && watchShutdown(deps.shutdownSignal),
    observer,
    // One timer for the deadlines and keep-alives of every exchange of the app.
    clock: new AlarmClock(),
  };
  const auth = authenticate({ lookup: cacheKeyLookup(deps.lookupKey, now), now });

  const app = new Hono<AppEnv>();
  app.use(requestContext({ config: deps.config, now, observer }));
  app.onError((error, c) => {
    const gatewayError = asGatewayError(error);
    if (gatewayError.status === 500) {
      deps.log.error("request failed", {
        request_id: c.get("requestId"),
        code: gatewayError.code,
        error: describeError(gatewayError.cause ?? gatewayError),
      });
    }
    return errorResponse(gatewayError, c.get("shape") ?? "openai", c.get("requestId") ?? "");
  });
  app.notFound((c) =>
    errorResponse(pathNotFound(c.req.path, c.req.method), c.get("shape"), c.get("requestId"))
  );

  app.get("/healthz", healthz());
  app.get("/readyz", readyz({ router, databaseReady: deps.databaseReady }));
  app.get("/metrics", metricsRoute(observer.metrics));
  app.get("/v1/models", auth, listModels(router));
  app.get("/v1/models/:id", auth, retrieveModel(router));
  app.use("/v1/*", bodyLimit());
  app.post("/v1/chat/completions", exposed("chat"), auth, relayRoute("chat", relayDeps));
  app.post("/v1/responses", exposed("responses"), auth, relayRoute("responses", relayDeps));
  app.post("/v1/messages", exposed("messages"), auth, relayRoute("messages", relayDeps));
  app.post("/v1/messages/count_tokens", exposed("messages"), auth, countTokensRoute(relayDeps));
  return app;
}
