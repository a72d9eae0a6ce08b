/**
 * The bench's fake upstream: answers POST /v1/chat/completions, /v1/responses and
 * /v1/messages with that protocol's fixed whole answer (with usage), or, when the body
 * asks for `"stream":true`, with its fixed SSE stream (bench/fake_answers.ts). A chat
 * stream carries usage only when the body asks for `"include_usage":true`, as the API
 * does. Every byte is computed once at start, so the fake costs as little CPU as a Deno
 * HTTP server can. Under two path prefixes the streams are slow instead of immediate:
 *
 * - `/slow/v1/…`: a stream of SLOW_CHUNKS content chunks, one event every SLOW_DELAY_MS
 *   (the first at once), as a model generating tokens would send them;
 * - `/idle/v1/…`: the stream's first event, then silence until the client goes away.
 *
 * Run as a child of bench/run.ts: `deno run -A bench/fake_upstream.ts [CHUNKS
 * [SLOW_CHUNKS [SLOW_DELAY_MS]]]`; prints `{"url":"http://127.0.0.1:PORT"}` on stdout
 * when listening and exits when stdin closes.
 */
import { serveUntilStdinCloses } from "./child.ts";
import { answersByPath, type FakeAnswers } from "./fake_answers.ts";

/** Content chunks of a streamed answer unless the first argument says otherwise. */
export const DEFAULT_CHUNKS = 64;
/** Content chunks of a slow stream, and the time between two of its events. */
export const DEFAULT_SLOW_CHUNKS = 200;
export const DEFAULT_SLOW_DELAY_MS = 2;

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };
const JSON_HEADERS = { "content-type": "application/json" };

/** The events `request` gets: chat without `include_usage` gets no usage, as from the API. */
function eventsFor(answer: FakeAnswers, body: string): Uint8Array[] {
  return answer.withoutUsage && !/"include_usage"\s*:\s*true/.test(body)
    ? answer.withoutUsage
    : answer.events;
}

/** One enqueue per event, so each goes out as its own chunk as a real upstream's would. */
function immediateStream(events: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const bytes = events[next++];
      if (bytes) controller.enqueue(bytes);
      else controller.close();
    },
  });
}

/** The first event, then nothing until the client cancels. */
function idleStream(events: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(events[0]!) });
}

/** A stream being paced: its controller, its events and when the next one is due. */
interface Paced {
  controller: ReadableStreamDefaultController<Uint8Array>;
  events: Uint8Array[];
  next: number;
  dueAt: number;
}

/**
 * Paced streams share one 1 ms ticker (a timer per stream and event would cost the fake
 * more than the proxies it feeds); each sends at most one event per tick, so every event
 * is its own write, and the ticker stops when no stream is left.
 */
function createPacer(delayMs: number): (events: Uint8Array[]) => ReadableStream<Uint8Array> {
  const active = new Set<Paced>();
  let ticker: ReturnType<typeof setInterval> | undefined;
  const tick = () => {
    const now = performance.now();
    for (const paced of active) {
      if (paced.dueAt > now) continue;
      paced.controller.enqueue(paced.events[paced.next++]!);
      paced.dueAt += delayMs;
      if (paced.next === paced.events.length) {
        paced.controller.close();
        active.delete(paced);
      }
    }
    if (active.size === 0) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };
  return (events) => {
    let paced: Paced | undefined;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(events[0]!);
        paced = { controller, events, next: 1, dueAt: performance.now() + delayMs };
        active.add(paced);
        ticker ??= setInterval(tick, 1);
      },
      cancel: () => void active.delete(paced!),
    });
  };
}

if (import.meta.main) {
  const [chunks, slowChunks, slowDelayMs] = [
    DEFAULT_CHUNKS,
    DEFAULT_SLOW_CHUNKS,
    DEFAULT_SLOW_DELAY_MS,
  ].map((fallback, i) => Number(Deno.args[i] ?? fallback));
  const fast = answersByPath(chunks!);
  const slow = answersByPath(slowChunks!);
  const paced = createPacer(slowDelayMs!);

  await serveUntilStdinCloses(async (request) => {
    const path = new URL(request.url).pathname;
    const mode = /^\/(slow|idle)\//.exec(path)?.[1];
    const answer = mode === "slow"
      ? slow[path.slice("/slow".length)]
      : mode === "idle"
      ? fast[path.slice("/idle".length)]
      : fast[path];
    if (request.method !== "POST" || !answer) return new Response("not found", { status: 404 });
    const text = await request.text();
    if (!/"stream"\s*:\s*true/.test(text)) {
      return new Response(answer.whole, { headers: JSON_HEADERS });
    }
    const events = eventsFor(answer, text);
    const stream = mode === "slow"
      ? paced(events)
      : mode === "idle"
      ? idleStream(events)
      : immediateStream(events);
    return new Response(stream, { headers: SSE_HEADERS });
  });
}
