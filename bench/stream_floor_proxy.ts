/**
 * The runtime's floor for a proxy that looks at a stream: forwards POST
 * /v1/chat/completions to the upstream and returns its stream either untouched
 * (`native`: Deno pipes the bytes without JavaScript), through an identity
 * `TransformStream` (`transform`), or through a reader loop feeding a JavaScript
 * `ReadableStream` that decodes each chunk (`pull`: the least a metering gateway does).
 *
 * Run as a child of bench/stream_floor.ts: `deno run -A bench/stream_floor_proxy.ts URL MODE`.
 */
import { serveUntilStdinCloses } from "./child.ts";

/** How the proxy relays the stream. */
export type FloorMode = "native" | "transform" | "pull";

/** The client's body for the upstream's stream, relayed as `mode` says. */
function relayed(body: ReadableStream<Uint8Array>, mode: FloorMode): ReadableStream<Uint8Array> {
  if (mode === "native") return body;
  if (mode === "transform") return body.pipeThrough(new TransformStream());
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
