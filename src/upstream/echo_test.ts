import assert from "node:assert/strict";
import { countTokens } from "gpt-tokenizer";
import type { EntryProtocol } from "../config/schema.ts";
import type { SseEvent } from "../translate/sse.ts";
import { protocolOf } from "../protocols/index.ts";
import { loadTokenCounter } from "../tokens/token_count.ts";
import { echoResponse } from "./echo.ts";
import { readSse } from "./sse.ts";

const now = () => 1_700_000_000_123;
const count = await loadTokenCounter();
const SYSTEM = "You are terse.";
const FIRST = "An earlier question.";
const LAST = "Hello there, echo channel!";
// Input counts every prompt text joined by newlines; output counts the reply.
const INPUT_TOKENS = countTokens([SYSTEM, FIRST, "ok", LAST].join("\n"));

const BODIES: Record<Exclude<EntryProtocol, "gemini">, Record<string, unknown>> = {
  chat: {
    model: "echo",
    messages: [
      { role: "system", content: SYSTEM },
      { role: "user", content: FIRST },
      { role: "assistant", content: "ok" },
      { role: "user", content: [{ type: "text", text: LAST }] },
    ],
  },
  responses: {
    model: "echo",
    instructions: SYSTEM,
    input: [
      { role: "user", content: FIRST },
      { role: "assistant", content: [{ type: "output_text", text: "ok" }] },
      { role: "user", content: [{ type: "input_text", text: LAST }] },
    ],
  },
  messages: {
    model: "echo",
    max_tokens: 1024,
    system: SYSTEM,
    messages: [
      { role: "user", content: FIRST },
      { role: "assistant", content: "ok" },
      { role: "user", content: [{ type: "text", text: LAST }] },
    ],
  },
};

const EXPECTED_USAGE = {
  input_tokens: INPUT_TOKENS,
  output_tokens: countTokens(LAST),
  cached_tokens: 0,
  cache_write_tokens: 0,
};

async function events(response: Response): Promise<SseEvent[]> {
  assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const seen: SseEvent[] = [];
  for await (const event of readSse(response.body!)) seen.push(event);
  return seen;
}

const json = (event: SseEvent) => JSON.parse(event.data);

Deno.test("echo answers chat with a chat.completion", async () => {
  const body = await echoResponse(protocolOf("chat"), BODIES.chat, { now, count }).json();
  assert.match(body.id, /^chatcmpl-/);
  assert.equal(body.object, "chat.completion");
  assert.equal(body.created, 1_700_000_000);
  assert.equal(body.model, "echo");
  assert.deepEqual(body.choices[0].message.content, LAST);
  assert.equal(body.choices[0].finish_reason, "stop");
  assert.deepEqual(protocolOf("chat").usageFromResponse(body), EXPECTED_USAGE);
  assert.equal(body.usage.total_tokens, INPUT_TOKENS + countTokens(LAST));
});

Deno.test("echo answers responses with a response object", async () => {
  const body = await echoResponse(protocolOf("responses"), BODIES.responses, { now, count }).json();
  assert.match(body.id, /^resp_/);
  assert.equal(body.object, "response");
  assert.equal(body.status, "completed");
  assert.equal(body.instructions, SYSTEM);
  assert.equal(body.output[0].type, "message");
  assert.deepEqual(body.output[0].content[0].text, LAST);
  assert.deepEqual(protocolOf("responses").usageFromResponse(body), EXPECTED_USAGE);
});

Deno.test("echo answers a responses string input", async () => {
  const body = await echoResponse(protocolOf("responses"), { model: "echo", input: "just this" }, {
    now,
    count,
  })
    .json();
  assert.equal(body.output[0].content[0].text, "just this");
  assert.equal(body.usage.input_tokens, countTokens("just this"));
});

Deno.test("echo answers messages with a message", async () => {
  const body = await echoResponse(protocolOf("messages"), BODIES.messages, { now, count }).json();
  assert.match(body.id, /^msg_/);
  assert.equal(body.type, "message");
  assert.deepEqual(body.content, [{ type: "text", text: LAST }]);
  assert.equal(body.stop_reason, "end_turn");
  assert.deepEqual(protocolOf("messages").usageFromResponse(body), EXPECTED_USAGE);
});

Deno.test("echo truncates to the output cap at a word boundary", async () => {
  const chat = await echoResponse(protocolOf("chat"), { ...BODIES.chat, max_tokens: 3 }, {
    now,
    count,
  }).json();
  assert.equal(chat.choices[0].message.content, "Hello there,");
  assert.equal(chat.choices[0].finish_reason, "length");
  assert.equal(chat.usage.completion_tokens, countTokens("Hello there,"));

  const responses = await echoResponse(
    protocolOf("responses"),
    { ...BODIES.responses, max_output_tokens: 3 },
    { now, count },
  ).json();
  assert.equal(responses.status, "incomplete");
  assert.deepEqual(responses.incomplete_details, { reason: "max_output_tokens" });

  const messages = await echoResponse(
    protocolOf("messages"),
    { ...BODIES.messages, max_tokens: 1 },
    {
      now,
      count,
    },
  )
    .json();
  assert.deepEqual(messages.content, [{ type: "text", text: "Hello" }]);
  assert.equal(messages.stop_reason, "max_tokens");
});

Deno.test("echo streams chat chunks word by word, with a usage chunk when asked", async () => {
  const body = { ...BODIES.chat, stream: true, stream_options: { include_usage: true } };
  const seen = await events(echoResponse(protocolOf("chat"), body, { now, count }));
  assert.deepEqual(seen.at(-1), { data: "[DONE]" });
  const chunks = seen.slice(0, -1).map(json);
  assert.ok(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0].id));
  assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "", refusal: null });
  const deltas = chunks.slice(1, -2).map((c) => c.choices[0].delta.content);
  assert.deepEqual(deltas, ["Hello", " there,", " echo", " channel!"]);
  assert.equal(chunks.at(-2).choices[0].finish_reason, "stop");
  assert.deepEqual(chunks.at(-1).choices, []);
  const tap = protocolOf("chat").createUsageTap();
  seen.forEach((event) => tap.observe(event));
  assert.deepEqual(tap.usage(), EXPECTED_USAGE);
});

Deno.test("echo streams chat without a usage chunk unless asked", async () => {
  const seen = await events(
    echoResponse(protocolOf("chat"), { ...BODIES.chat, stream: true }, { now, count }),
  );
  const chunks = seen.slice(0, -1).map(json);
  assert.equal(chunks.at(-1).choices[0].finish_reason, "stop");
  assert.ok(chunks.every((c) => !("usage" in c)));
});

Deno.test("echo streams the full responses event sequence", async () => {
  const seen = await events(
    echoResponse(protocolOf("responses"), { ...BODIES.responses, stream: true }, {
      now,
      count,
    }),
  );
  assert.deepEqual(seen.map((e) => e.event), [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
  ]);
  const bodies = seen.map(json);
  assert.deepEqual(bodies.map((b) => b.sequence_number), bodies.map((_, i) => i));
  assert.deepEqual(bodies.map((b) => b.type), seen.map((e) => e.event));
  assert.equal(bodies[8].text, LAST);
  assert.equal(bodies[11].response.output[0].content[0].text, LAST);
  const tap = protocolOf("responses").createUsageTap();
  seen.forEach((event) => tap.observe(event));
  assert.deepEqual(tap.usage(), EXPECTED_USAGE);
});

Deno.test("echo streams the full messages event sequence", async () => {
  const seen = await events(
    echoResponse(protocolOf("messages"), { ...BODIES.messages, stream: true }, {
      now,
      count,
    }),
  );
  assert.deepEqual(seen.map((e) => e.event), [
    "message_start",
    "content_block_start",
    "ping",
    "content_block_delta",
    "content_block_delta",
    "content_block_delta",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
  ]);
  const bodies = seen.map(json);
  assert.deepEqual(bodies.map((b) => b.type), seen.map((e) => e.event));
  assert.equal(bodies.slice(3, 7).map((b) => b.delta.text).join(""), LAST);
  assert.equal(bodies[8].delta.stop_reason, "end_turn");
  const tap = protocolOf("messages").createUsageTap();
  seen.forEach((event) => tap.observe(event));
  assert.deepEqual(tap.usage(), EXPECTED_USAGE);
});

Deno.test("echo stream stops cleanly when cancelled", async () => {
  const response = echoResponse(protocolOf("messages"), { ...BODIES.messages, stream: true }, {
    now,
    count,
  });
  const reader = response.body!.getReader();
  assert.equal((await reader.read()).done, false);
  await reader.cancel();
});

Deno.test("echo stream errors with the abort reason when the signal aborts", async () => {
  const controller = new AbortController();
  const response = echoResponse(protocolOf("chat"), { ...BODIES.chat, stream: true }, {
    now,
    count,
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort(new Error("client gone"));
  await assert.rejects(() => reader.read(), /client gone/);
});

Deno.test("echo takes input tokens the gateway counted already, and cuts a long reply to the cap", async () => {
  const words = "The quick brown fox jumps over the lazy dog. ".repeat(25_000);
  const body = { model: "echo", max_tokens: 1_000, messages: [{ role: "user", content: words }] };
  const reply = await echoResponse(protocolOf("chat"), body, { now, count, inputTokens: 123 })
    .json();
  assert.equal(reply.usage.prompt_tokens, 123);
  const content: string = reply.choices[0].message.content;
  assert.ok(words.startsWith(content));
  // A prefix of whole words, as many as fit: the next word would pass the cap.
  assert.equal(reply.usage.completion_tokens, countTokens(content));
  assert.ok(reply.usage.completion_tokens <= 1_000 && reply.usage.completion_tokens > 990);
  assert.equal(reply.choices[0].finish_reason, "length");
});
