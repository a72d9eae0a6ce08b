/**
 * The runtime's floor for a proxy that looks at a stream: forwards POST
 * /v1/chat/completions to the upstream and returns its stream either untouched
 * (`native`: Deno pipes the bytes without JavaScript), through an identity
 * `TransformStream` (`transform`), or through a reader loop feeding a JavaScript
 * `ReadableStream` that decodes each chunk (`pull`: the least a metering gateway does), or
 * the same reading into 4 KiB buffers of its own (`byob`, as tollgate reads: a default
 * reader's pending read holds a 64 KiB buffer, which an idle stream keeps for its life).
 *
 * Run as a child of bench/stream_floor.ts: `deno run -A bench/stream_floor_proxy.ts URL MODE`.
 */
import { serveUntilStdinCloses } from "./child.ts";

/** How the proxy relays the stream. */
export type FloorMode = "native" | "transform" | "pull" | "byob";

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
  await serveUntilStdinCloses(async (request) => {
    const response = await fetch(`${upstream}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: await request.arrayBuffer(),
    });
    return new Response(relayed(response.body!, mode), { headers: response.headers });
  });
}
