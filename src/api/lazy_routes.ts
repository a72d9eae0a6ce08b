/**
 * Routes whose modules load on their first request. A gateway that never shows a page need
 * not hold the dashboard's components and `hono/jsx` (several MiB of RSS: bench/README.md,
 * "Idle RSS"), so the app registers one handler in their place that builds them into a Hono
 * app of their own on first use and hands it each request, with the variables its
 * middleware set so far.
 */
import { type Env, type Handler, Hono } from "hono";

/** The outer request's variables, by the request the inner app is handed. */
const OUTER_VARIABLES = new WeakMap<Request, Record<string, unknown>>();

/**
 * A handler that, on its first request, makes a Hono app, lets `build` register the routes
 * (and their 404 and 405 answers) on it, and from then on serves each request through it.
 * The inner app sees the outer request's variables and bindings; what it throws (past its
 * routes' own error handlers) is thrown to the outer app's.
 */
export function lazyRoutes<E extends Env>(
  build: (app: Hono<E>) => Promise<void>,
): Handler<E> {
  let loaded: Promise<Hono<E>> | undefined;
  const load = async () => {
    const app = new Hono<E>();
    app.use(function outerVariables(c, next) {
      const outer = OUTER_VARIABLES.get(c.req.raw) ?? {};
      for (const [name, value] of Object.entries(outer)) c.set(name as never, value as never);
      return next();
    });
    app.onError((error) => {
      throw error;
    });
    await build(app);
    return app;
  };
  return async function lazyRoutes(c) {
    loaded ??= load().catch((error) => {
      loaded = undefined;
      throw error;
    });
    const app = await loaded;
    // `c.var` builds an object of the variables: once a request here, to copy them.
    OUTER_VARIABLES.set(c.req.raw, c.var);
    try {
      return await app.fetch(c.req.raw, c.env);
    } finally {
      OUTER_VARIABLES.delete(c.req.raw);
    }
  };
}
