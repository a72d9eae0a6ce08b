/**
 * The plain app tollgate's HTTP handling is held to (tests/http1_test.ts, and
 * bench/chunked_body.ts): a minimal `new Hono()` app on `Deno.serve` that answers a POST
 * with the JSON body it read through Hono (`c.req.json()`), behind Hono's own `bodyLimit`
 * when given a limit. Whatever the runtime and Hono do with a request, this app does and
 * nothing more.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";

/** The plain app; `maxBytes` puts Hono's `bodyLimit` in front of it. */
export function plainHonoApp(maxBytes?: number): Hono {
  const app = new Hono();
  if (maxBytes !== undefined) app.use(bodyLimit({ maxSize: maxBytes }));
  app.post("*", async (c) => c.json(await c.req.json()));
  return app;
}

/** The plain app served on 127.0.0.1, port 0. */
export function startPlainHono(
  maxBytes?: number,
): { url: string; close(): Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    plainHonoApp(maxBytes).fetch,
  );
  return { url: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}
