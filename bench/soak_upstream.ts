/**
 * The soak's upstream: chat completions whose streams are slow (a first content chunk at
 * once, then one every `gapMs`, `chunks` of them, then usage and `[DONE]`), so a thousand of them stay open
 * for a minute, and whose non-stream answers are immediate.
 *
 * Run as a child of bench/soak.ts: `deno run -A bench/soak_upstream.ts CHUNKS GAP_MS`.
 */
import { serveUntilStdinCloses } from "./child.ts";
import { completionBody } from "./fake_answers.ts";

const chunks = Number(Deno.args[0] ?? 30);
const gapMs = Number(Deno.args[1] ?? 2_000);
const encoder = new TextEncoder();
const chunk = (i: number) =>
  encoder.encode(
    `data: {"id":"chatcmpl-soak","object":"chat.completion.chunk","created":1700000000,` +
      `"model":"soak","choices":[{"index":0,"delta":{"content":"word${i} "},` +
      `"finish_reason":null}],"usage":null}\n\n`,
  );
const tail = encoder.encode(
  `data: {"id":"chatcmpl-soak","object":"chat.completion.chunk","created":1700000000,` +
    `"model":"soak","choices":[],"usage":{"prompt_tokens":8,"completion_tokens":${chunks},` +
    `"total_tokens":${chunks + 8}}}\n\ndata: [DONE]\n\n`,
);
const whole = completionBody();

await serveUntilStdinCloses(async (request) => {
  const body = await request.text();
  if (!body.includes('"stream":true')) {
    return new Response(whole, { headers: { "content-type": "application/json" } });
  }
  let sent = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  return new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        // The first word at once: time to first byte measures the gateway, not the gap.
        controller.enqueue(chunk(sent++));
        timer = setInterval(() => {
          if (sent < chunks) controller.enqueue(chunk(sent++));
          else {
            clearInterval(timer);
            controller.enqueue(tail);
            controller.close();
          }
        }, gapMs);
      },
      cancel: () => clearInterval(timer),
    }),
    { headers: { "content-type": "text/event-stream" } },
  );
});
