import assert from "node:assert/strict";
import type { SseEvent } from "../translate/sse.ts";
import type { BodyReader } from "./response.ts";
import { readSse, readSseBatches } from "./sse.ts";
import { UpstreamFailure } from "./call.ts";

const decoder = new TextDecoder();

function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return ReadableStream.from(chunks.map((chunk) => encoder.encode(chunk)));
}

async function collect(body: ReadableStream<Uint8Array>): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(body)) events.push(event);
  return events;
}

const TRANSCRIPT = 'event: message_start\ndata: {"type":"message_start","a":[1, 2]}\n\n' +
  ": keep-alive comment\n\n" +
  "id: 42\ndata: line one\ndata: line two\n\n" +
  "data: [DONE]\n\n";

const EXPECTED: SseEvent[] = [
  { event: "message_start", data: '{"type":"message_start","a":[1, 2]}' },
  { id: "42", data: "line one\nline two" },
  { data: "[DONE]" },
];

const CASES: { name: string; chunks: string[] }[] = [
  { name: "one chunk", chunks: [TRANSCRIPT] },
  { name: "split every 7 characters", chunks: TRANSCRIPT.match(/[\s\S]{1,7}/g) ?? [] },
  { name: "one character at a time", chunks: [...TRANSCRIPT] },
  { name: "CRLF line endings", chunks: [TRANSCRIPT.replaceAll("\n", "\r\n")] },
  {
    name: "CRLF split between CR and LF",
    chunks: TRANSCRIPT.replaceAll("\n", "\r\n").split(/(?<=\r)/),
  },
];

for (const { name, chunks } of CASES) {
  Deno.test(`readSse parses a transcript: ${name}`, async () => {
    assert.deepEqual(await collect(bodyOf(chunks)), EXPECTED);
  });
}

Deno.test("readSse decodes a UTF-8 character split across chunks", async () => {
  const bytes = new TextEncoder().encode('data: {"t":"héllo ✓"}\n\n');
  const body = ReadableStream.from([bytes.slice(0, 14), bytes.slice(14, 23), bytes.slice(23)]);
  assert.deepEqual(await collect(body), [{ data: '{"t":"héllo ✓"}' }]);
});

Deno.test("readSse drops an event the stream ends before finishing", async () => {
  assert.deepEqual(await collect(bodyOf(["data: a\n\ndata: partial"])), [{ data: "a" }]);
});

Deno.test("readSse cancels the body when the consumer stops early", async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new TextEncoder().encode("data: x\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  for await (const event of readSse(body)) {
    assert.equal(event.data, "x");
    break;
  }
  // Cancellation travels back through the decoding pipes asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(cancelled, true);
});

Deno.test("readSse throws the abort reason and cancels a silent body", async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("data: first\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  const controller = new AbortController();
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const event of readSse(body, controller.signal)) {
      seen.push(event.data);
      controller.abort(new Error("client went away"));
    }
  }, /client went away/);
  assert.deepEqual(seen, ["first"]);
  assert.equal(cancelled, true);
});

Deno.test("readSse propagates a broken body as an error", async () => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("data: a\n\n"));
      controller.error(new Error("connection reset"));
    },
  });
  await assert.rejects(() => collect(body), /connection reset/);
});

Deno.test("readSseBatches marks the batch its body ended with as the last, and reads no more", async () => {
  const encoder = new TextEncoder();
  const chunks = ["data: a\n\n", "data: b\n\ndata: c\n\n"];
  let reads = 0;
  // Like tollgate's HTTP/1.1 body: the read that holds the body's end says so.
  const body: BodyReader = {
    read: () =>
      Promise.resolve(reads < chunks.length ? encoder.encode(chunks[reads++]!) : undefined),
    cancel: () => Promise.resolve(),
    get ended() {
      return reads === chunks.length;
    },
  };
  const batches = readSseBatches(body);
  const first = await batches.next();
  assert.deepEqual(first.value?.events, [{ data: "a" }]);
  assert.equal(first.value?.last, undefined);
  const second = await batches.next();
  assert.deepEqual(second.value?.events, [{ data: "b" }, { data: "c" }]);
  assert.equal(second.value?.last, true);
  assert.equal(decoder.decode(second.value?.bytes), chunks[1], "its bytes go on as they came");
  assert.equal((await batches.next()).done, true);
  assert.equal(reads, 2);
});

/** A BodyReader of `chunks` with a bound of `maxAnswerBytes`; `cancelled` once cancelled. */
function boundedBody(chunks: string[], maxAnswerBytes: number) {
  const encoder = new TextEncoder();
  const state = { reads: 0, cancelled: false };
  const body: BodyReader = {
    read: () =>
      Promise.resolve(
        state.reads < chunks.length ? encoder.encode(chunks[state.reads++]!) : undefined,
      ),
    cancel: () => {
      state.cancelled = true;
      return Promise.resolve();
    },
    maxAnswerBytes,
  };
  return { body, state };
}

/** Every event of `body` read by batches. */
async function eventsOf(body: BodyReader): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const batch of readSseBatches(body)) events.push(...batch.events);
  return events;
}

Deno.test("readSseBatches bounds one event by the body's bound, never the stream", async () => {
  // Forty events of ~30 bytes, split anywhere, each line end in its own spelling: the
  // stream is far over 100 bytes, no event is, and the part held between chunks never is.
  const ends = ["\n\n", "\r\r", "\r\n\r\n", "\n\r\n", "\r\n\n"];
  const text = Array.from(
    { length: 40 },
    (_, n) => `data: event ${n} ${"-".repeat(12)}${ends[n % 5]}`,
  )
    .join("");
  const chunks = text.match(/[\s\S]{1,23}/g)!;
  const { body } = boundedBody(chunks, 100);
  assert.equal((await eventsOf(body)).length, 40);
  // One event of 150 bytes, in pieces that end no event: refused, the body cancelled.
  const large = boundedBody(["data: a\n\ndata: ", "x".repeat(60), "y".repeat(60), "z\n\n"], 100);
  await assert.rejects(eventsOf(large.body), (error) => {
    assert.ok(error instanceof UpstreamFailure, String(error));
    assert.equal(error.kind, "network");
    assert.match(error.message, /event that is larger than server\.max_answer_bytes \(100 bytes\)/);
    return true;
  });
  assert.equal(large.state.cancelled, true);
  assert.equal(large.state.reads, 3, "refused as the event outgrew the bound, not at its end");
});

Deno.test("readSseBatches tells a chunk of comments alone as an empty batch, a partial event as nothing", async () => {
  const { body } = boundedBody([
    "data: a\n\n",
    ": still working\n\n",
    "data: b",
    "\n\n",
  ], 1_000);
  const batches = [];
  for await (const batch of readSseBatches(body)) batches.push(batch.events);
  // The upstream's comment is activity (the idle timeout waits on it); half an event is not.
  assert.deepEqual(batches, [[{ data: "a" }], [], [{ data: "b" }]]);
});
