/**
 * The bench's fast fake upstream: answers POST /v1/chat/completions, /v1/responses and
 * /v1/messages with that protocol's fixed whole answer (with usage), or, when the body
 * asks for `"stream":true`, with its fixed SSE stream of N content chunks
 * (bench/fake_answers.ts). Every byte is computed once at start, so the fake costs as
 * little CPU as a Deno HTTP server can.
 *
 * Run as a child of bench/run.ts: `deno run -A bench/fake_upstream.ts [chunks]`; prints
 * `{"url":"http://127.0.0.1:PORT"}` on stdout when listening and exits when stdin closes.
 */
import { serveUntilStdinCloses } from "./child.ts";
import { answersByPath } from "./fake_answers.ts";

/** Content chunks of a streamed answer unless the first argument says otherwise. */
export const DEFAULT_CHUNKS = 64;

if (import.meta.main) {
  const answers = answersByPath(Number(Deno.args[0] ?? DEFAULT_CHUNKS));
  const jsonHeaders = { "content-type": "application/json" };
  const sseHeaders = { "content-type": "text/event-stream", "cache-control": "no-cache" };

  await serveUntilStdinCloses(async (request) => {
    const answer = answers[new URL(request.url).pathname];
    if (request.method !== "POST" || !answer) return new Response("not found", { status: 404 });
    const text = await request.text();
    if (!/"stream"\s*:\s*true/.test(text)) {
      return new Response(answer.whole, { headers: jsonHeaders });
    }
    const { events } = answer;
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
