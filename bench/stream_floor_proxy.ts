/**
 * The runtime's floor for a proxy that looks at a stream: forwards POST
 * /v1/chat/completions to the upstream and returns its stream either untouched
 * (`native`: Deno pipes the bytes without JavaScript), through an identity
 * `TransformStream` (`transform`), or through a reader loop feeding a JavaScript
 * `ReadableStream` that decodes each chunk (`pull`: the least a metering gateway does), or
 * the same reading into 4 KiB buffers of its own (`byob`: a default reader's pending read
 * holds a 64 KiB buffer, which an idle stream keeps for its life), or tollgate's own
 * HTTP/1.1 client instead of fetch, each chunk one socket read (`http1`, as tollgate reads
 * since 2026-11-25), or that client behind a server of its own on `Deno.listen` instead
 * of `Deno.serve` (`own-server`, own_server_floor.ts).
 *
 * Run as a child of bench/stream_floor.ts: `deno run -A bench/stream_floor_proxy.ts URL MODE`.
 */
import { NEVER, serveUntilStdinCloses } from "./child.ts";
import { createHttpClient, type HttpClient } from "../src/upstream/http1/client.ts";
import type { BodyReader } from "../src/upstream/response.ts";
import { serveOwnUntilStdinCloses } from "./own_server_floor.ts";

/** How the proxy relays the stream. */
export type FloorMode = "native" | "transform" | "pull" | "byob" | "http1" | "own-server";

/** The client's body for the upstream's stream, relayed as `mode` says. */
function relayed(body: ReadableStream<Uint8Array>, mode: FloorMode): ReadableStream<Uint8Array> {
  if (mode === "native") return body;
  if (mode === "transform") return body.pipeThrough(new TransformStream());
  if (mode === "byob") return byobRelayed(body);
  const reader = body.getReader();
  const decoder = new TextDecoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      decoder.decode(value, { stream: true });
      controller.enqueue(value);
    },
  });
}

/** `pull` over tollgate's HTTP/1.1 client's body reader. */
function http1Relayed(body: BodyReader): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await body.read();
      if (!chunk) return controller.close();
      decoder.decode(chunk, { stream: true });
      controller.enqueue(chunk);
    },
    cancel: () => body.cancel(),
  });
}

/** The `http1` mode's answer: the upstream reached through tollgate's client. */
async function viaHttp1(client: HttpClient, upstream: string, request: Request) {
  const response = await client.post({
    url: `${upstream}/v1/chat/completions`,
    headers: { "content-type": "application/json" },
    body: await request.text(),
  }, { signal: NEVER, connectMs: 10_000 });
  return new Response(http1Relayed(response.body!), {
    headers: { "content-type": response.header("content-type") ?? "text/event-stream" },
  });
}

/** `pull` with BYOB reads of at most 4 KiB. */
function byobRelayed(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader({ mode: "byob" });
  const decoder = new TextDecoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read(new Uint8Array(4096));
      if (done || !value) return controller.close();
      decoder.decode(value, { stream: true });
      controller.enqueue(value);
    },
  });
}

if (import.meta.main) {
  const [upstream, mode] = Deno.args as [string, FloorMode];
  if (mode === "own-server") await serveOwnUntilStdinCloses(upstream);
  const client = createHttpClient();
  await serveUntilStdinCloses(async (request) => {
    if (mode === "http1") return await viaHttp1(client, upstream, request);
    const response = await fetch(`${upstream}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await request.arrayBuffer(),
    });
    return new Response(relayed(response.body!, mode), { headers: response.headers });
  });
}
