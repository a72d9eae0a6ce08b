/**
 * The bench's fast fake upstream: answers POST /v1/chat/completions with a fixed chat
 * completion (with usage), or with a fixed SSE stream of N content chunks, a usage chunk
 * and `[DONE]` when the body asks for `"stream":true`. Every byte is computed once at
 * start, so the fake costs as little CPU as a Deno HTTP server can.
 *
 * Run as a child of bench/run.ts: `deno run -A bench/fake_upstream.ts [chunks]`; prints
 * `{"url":"http://127.0.0.1:PORT"}` on stdout when listening and exits when stdin closes.
 */
import { serveUntilStdinCloses } from "./child.ts";

/** Content chunks of a streamed answer unless the first argument says otherwise. */
export const DEFAULT_CHUNKS = 64;

const CREATED = 1_700_000_000;
const ID = "chatcmpl-bench";

/** The non-stream answer: a chat completion with usage. */
export function completionBody(): string {
  return JSON.stringify({
    id: ID,
    object: "chat.completion",
    created: CREATED,
    model: "bench",
    choices: [{
      index: 0,
      message: { role: "assistant", content: "Hello from the bench upstream." },
      finish_reason: "stop",
    }],
    usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
  });
}

/** The stream's events, one Uint8Array each: N content chunks, a usage chunk, `[DONE]`. */
export function streamChunks(chunks: number): Uint8Array[] {
  const encoder = new TextEncoder();
  const event = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: Record<string, string>, finish: string | null) =>
    event({
      id: ID,
      object: "chat.completion.chunk",
      created: CREATED,
      model: "bench",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const events: Uint8Array[] = [];
  for (let i = 0; i < chunks; i++) {
    const delta: Record<string, string> = i === 0
      ? { role: "assistant", content: `tok${i} ` }
      : { content: `tok${i} ` };
    events.push(chunk(delta, i === chunks - 1 ? "stop" : null));
  }
  events.push(event({
    id: ID,
    object: "chat.completion.chunk",
    created: CREATED,
    model: "bench",
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: chunks, total_tokens: 12 + chunks },
  }));
  events.push(encoder.encode("data: [DONE]\n\n"));
  return events;
}

if (import.meta.main) {
  const chunks = Number(Deno.args[0] ?? DEFAULT_CHUNKS);
  const body = completionBody();
  const events = streamChunks(chunks);
  const jsonHeaders = { "content-type": "application/json" };
  const sseHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" };

  await serveUntilStdinCloses(async (request) => {
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/v1/chat/completions") {
      return new Response("not found", { status: 404 });
    }
    const text = await request.text();
    if (!/"stream"\s*:\s*true/.test(text)) return new Response(body, { headers: jsonHeaders });
    let next = 0;
    // One enqueue per event, so each goes out as its own chunk as a real upstream's would.
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const bytes = events[next++];
        if (bytes) controller.enqueue(bytes);
        else controller.close();
      },
    });
    return new Response(stream, { headers: sseHeaders });
  });
}
