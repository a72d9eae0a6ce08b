/**
 * Builds tollgate's app from its dependencies (nothing here is module-level state): the
 * routes of design.md's HTTP surface, each request's context, and the one place errors
 * are rendered. The server (http/) hands it requests and writes its answers.
 */
import { andThen } from "./awaitable.ts";
import { authenticate } from "./auth/authenticate.ts";
import { cacheKeyLookup } from "./auth/key_cache.ts";
import type { KeyLookup } from "./auth/principal.ts";
import type { Accounting } from "./billing/accounting.ts";
import type { EntryProtocol } from "./config/schema.ts";
import type { ConfigSnapshot } from "./config/store.ts";
import { asGatewayError, errorAnswer, GatewayError } from "./errors.ts";
import { describeError, type Logger } from "./log.ts";
import {
  type KeyRoute,
  newRequestId,
  type RequestContext,
  requestContext,
  shapeOf,
  stampAnswer,
} from "./middleware/request_context.ts";
import { countTokensRoute } from "./routes/count_tokens.ts";
import { listModels, retrieveModel } from "./routes/models.ts";
import { pathNotFound } from "./routes/not_found.ts";
import { relayRoute } from "./routes/relay.ts";
import { bodyTooLarge } from "./relay/body.ts";
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
import type { Answer } from "./http/answer.ts";
import type { IncomingRequest } from "./http/incoming.ts";

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

/** tollgate's app: what the server hands each request to. */
export interface App {
  /** Answers a request; never throws (an error is answered in the path's shape). */
  handle(request: IncomingRequest): Promise<Answer>;
  /** The answer to a request the server could not read (malformed, a head too large). */
  refuse(status: number, message: string, path?: string): Answer;
}

/** A route: a request's answer (or a thrown GatewayError). */
type Route = (context: RequestContext) => Answer | Promise<Answer>;

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
    shutdown: deps.shutdownSignal && watchShutdown(deps.shutdownSignal),
    observer,
    // One timer for the deadlines and keep-alives of every exchange of the app.
    clock: new AlarmClock(),
  };
  const auth = authenticate({ lookup: cacheKeyLookup(deps.lookupKey, now), now });
  const withKey = (route: KeyRoute): Route => (context) =>
    andThen(auth(context), (principal) => route(context, principal));
  const entryPoint = (entry: EntryProtocol, route: KeyRoute) =>
    withBody(exposed(entry, withKey(route)));
  const retrieve = retrieveModel(router);

  // GET routes answer HEAD as well (without their body).
  const getRoutes = new Map<string, Route>([
    ["/healthz", healthz()],
    ["/readyz", readyz({ router, databaseReady: deps.databaseReady })],
    ["/metrics", metricsRoute(observer.metrics)],
    ["/v1/models", withKey(listModels(router))],
  ]);
  const postRoutes = new Map<string, Route>([
    ["/v1/chat/completions", entryPoint("chat", relayRoute("chat", relayDeps))],
    ["/v1/responses", entryPoint("responses", relayRoute("responses", relayDeps))],
    ["/v1/messages", entryPoint("messages", relayRoute("messages", relayDeps))],
    ["/v1/messages/count_tokens", entryPoint("messages", countTokensRoute(relayDeps))],
  ]);

  function route(context: RequestContext): Answer | Promise<Answer> {
    const { method, path } = context.request;
    const get = method === "GET" || method === "HEAD";
    const found = (get ? getRoutes : method === "POST" ? postRoutes : undefined)?.get(path);
    if (found) return found(context);
    const modelId = get ? modelIdOf(path) : undefined;
    if (modelId !== undefined) {
      return andThen(auth(context), (principal) => retrieve(context, principal, modelId));
    }
    throw pathNotFound(path, method);
  }

  /** The answer of an error, logged when it is tollgate's fault. */
  function failed(context: RequestContext, error: unknown): Answer {
    const gatewayError = asGatewayError(error);
    if (gatewayError.status === 500) {
      deps.log.error("request failed", {
        request_id: context.requestId,
        code: gatewayError.code,
        error: describeError(gatewayError.cause ?? gatewayError),
      });
    }
    return errorAnswer(gatewayError, context.shape, context.requestId);
  }

  return {
    async handle(request) {
      const snapshot = deps.config.current();
      const context = requestContext(request, snapshot, now());
      let answer: Answer;
      try {
        answer = await route(context);
      } catch (error) {
        answer = failed(context, error);
      }
      // Rate-limit headers go on every answer after admission, errors included.
      stampAnswer(context, answer);
      const { record } = context;
      record.status = answer.status;
      if (record.outcome === undefined && answer.status >= 400) record.outcome = "refused";
      // A stream reports itself when it ends.
      if (!record.streaming) observer.finished(record, snapshot.config.server);
      return answer;
    },
    refuse(status, message, path) {
      const error = status === 431
        ? new GatewayError(431, "request_too_large", message, { messagesType: "request_too_large" })
        : new GatewayError(status, "invalid_request", message, {
          messagesType: "invalid_request_error",
        });
      return errorAnswer(error, path === undefined ? "openai" : shapeOf(path), newRequestId(now()));
    },
  };
}

/** The `{id}` of GET /v1/models/{id}, percent-decoded; undefined for any other path. */
function modelIdOf(path: string): string | undefined {
  const prefix = "/v1/models/";
  if (!path.startsWith(prefix) || path.length === prefix.length) return undefined;
  const id = path.slice(prefix.length);
  if (id.includes("/")) return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return undefined;
  }
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

/** 413 before authentication for a body whose declared size is over the limit (design.md's flow). */
function withBody(route: Route): Route {
  return function bodyLimit(context) {
    const limit = context.snapshot.config.server.max_body_bytes;
    if (context.request.declaredBodySize > limit) throw bodyTooLarge(limit);
    return route(context);
  };
}
