/**
 * The floor of this runtime: a bare Hono + fetch pass-through that forwards
 * POST /v1/chat/completions to the fake upstream and returns its response as is. It
 * does no auth, no parsing, no accounting: tollgate can only be slower than this.
 *
 * Run as a child of bench/run.ts: `deno run -A bench/bare_proxy.ts UPSTREAM_URL`.
 */
import { Hono } from "hono";
import { serveUntilStdinCloses } from "./child.ts";

if (import.meta.main) {
  const upstream = Deno.args[0];
  if (!upstream) throw new Error("Usage: bare_proxy.ts UPSTREAM_URL");
  const app = new Hono();
  app.post("/v1/chat/completions", async (c) => {
    const response = await fetch(`${upstream}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await c.req.arrayBuffer(),
    });
    return new Response(response.body, { status: response.status, headers: response.headers });
  });
  await serveUntilStdinCloses(app.fetch);
}
