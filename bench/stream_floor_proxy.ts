/**
 * The metering floor of the memory phase: forwards POST /v1/chat/completions to the
 * upstream through tollgate's own HTTP/1.1 client and relays its stream, each chunk one
 * socket read decoded as text and passed on. The least a gateway that meters does, and
 * nothing else (no auth, parsing or accounting).
 *
 * Run as a child of bench/run.ts: `deno run -A bench/stream_floor_proxy.ts URL`.
 */
import { NEVER, serveUntilStdinCloses } from "./child.ts";
import { createHttpClient, type HttpClient } from "../src/upstream/http1/client.ts";
import type { BodyReader } from "../src/upstream/response.ts";

/** The upstream's stream, each chunk decoded (as a meter reads it) and passed on. */
function relayed(body: BodyReader): ReadableStream<Uint8Array> {
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

/** The answer to `request`: the upstream reached through tollgate's client. */
async function viaHttp1(client: HttpClient, upstream: string, request: Request) {
  const response = await client.post({
    url: `${upstream}/v1/chat/completions`,
    headers: { "content-type": "application/json" },
    body: await request.text(),
  }, { signal: NEVER, connectMs: 10_000 });
  return new Response(relayed(response.body!), {
    headers: { "content-type": response.header("content-type") ?? "text/event-stream" },
  });
}

if (import.meta.main) {
  const [upstream] = Deno.args as [string];
  const client = createHttpClient();
  await serveUntilStdinCloses((request) => viaHttp1(client, upstream, request));
}
