import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { countTokens } from "gpt-tokenizer";
import { readSse } from "../../src/upstream/sse.ts";
import { type FakeUpstream, startFakeUpstream } from "./upstream.ts";

const REPLY = "fake:alpha says hi there";
const INPUT_TOKENS = countTokens("hi there");

async function withFake(test: (fake: FakeUpstream) => Promise<void>): Promise<void> {
  const fake = await startFakeUpstream({ name: "alpha", models: ["m1", "m2"] });
  try {
    await test(fake);
  } finally {
    await fake.close();
  }
}

const openai = (fake: FakeUpstream) =>
  new OpenAI({ apiKey: "sk-test", baseURL: fake.url, maxRetries: 0 });
// The Anthropic SDK appends `/v1/messages` itself.
const anthropic = (fake: FakeUpstream) =>
  new Anthropic({ apiKey: "sk-ant-test", baseURL: fake.url.replace(/\/v1$/, ""), maxRetries: 0 });

Deno.test("fake upstream speaks chat completions to the OpenAI SDK", async () => {
  await withFake(async (fake) => {
    const client = openai(fake);
    const messages = [{ role: "user" as const, content: "hi there" }];
    const completion = await client.chat.completions.create({ model: "m1", messages });
    assert.equal(completion.choices[0]?.message.content, REPLY);
    assert.equal(completion.usage?.prompt_tokens, INPUT_TOKENS);
    assert.equal(completion.usage?.completion_tokens, countTokens(REPLY));

    const stream = await client.chat.completions.create({
      model: "m1",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      usage = chunk.usage ?? usage;
    }
    assert.equal(text, REPLY);
    assert.equal(usage?.completion_tokens, countTokens(REPLY));

    const runner = client.chat.completions.stream({ model: "m1", messages });
    assert.equal((await runner.finalChatCompletion()).choices[0]?.message.content, REPLY);

    assert.equal(fake.requests[0]?.path, "/v1/chat/completions");
    assert.equal(fake.requests[0]?.headers.authorization, "Bearer sk-test");
    assert.deepEqual(fake.requests[0]?.body, { model: "m1", messages });
  });
});

Deno.test("fake upstream speaks responses to the OpenAI SDK", async () => {
  await withFake(async (fake) => {
    const client = openai(fake);
    const response = await client.responses.create({ model: "m1", input: "hi there" });
    assert.equal(response.output_text, REPLY);
    assert.equal(response.usage?.input_tokens, INPUT_TOKENS);

    const stream = await client.responses.create({ model: "m1", input: "hi there", stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    assert.equal(types[0], "response.created");
    assert.equal(types.at(-1), "response.completed");

    const runner = client.responses.stream({
      model: "m1",
      input: [{ role: "user", content: [{ type: "input_text", text: "hi there" }] }],
    });
    const final = await runner.finalResponse();
    assert.equal(final.output_text, REPLY);
    assert.equal(final.usage?.output_tokens, countTokens(REPLY));
  });
});

Deno.test("fake upstream speaks messages to the Anthropic SDK", async () => {
  await withFake(async (fake) => {
    const client = anthropic(fake);
    const params = {
      model: "m1",
      max_tokens: 100,
      messages: [{ role: "user" as const, content: "hi there" }],
    };
    const message = await client.messages.create(params);
    assert.deepEqual(message.content.map((b) => b.type === "text" ? b.text : ""), [REPLY]);
    assert.equal(message.stop_reason, "end_turn");
    assert.equal(message.usage.input_tokens, INPUT_TOKENS);

    const stream = await client.messages.create({ ...params, stream: true });
    let text = "";
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
        text += event.delta.text;
      }
    }
    assert.equal(text, REPLY);

    const final = await client.messages.stream(params).finalMessage();
    assert.equal(final.usage.output_tokens, countTokens(REPLY));
    // This SDK version sends its key as a bearer token rather than `x-api-key`.
    const headers = fake.requests[0]?.headers ?? {};
    assert.ok(
      headers["x-api-key"] === "sk-ant-test" || headers.authorization === "Bearer sk-ant-test",
    );

    const counted = await client.messages.countTokens({ model: "m1", messages: params.messages });
    assert.equal(counted.input_tokens, INPUT_TOKENS);
  });
});

Deno.test("fake upstream lists models for both SDKs", async () => {
  await withFake(async (fake) => {
    const openaiIds = [];
    for await (const model of openai(fake).models.list()) openaiIds.push(model.id);
    assert.deepEqual(openaiIds, ["m1", "m2"]);
    const anthropicIds = [];
    for await (const model of anthropic(fake).models.list()) anthropicIds.push(model.id);
    assert.deepEqual(anthropicIds, ["m1", "m2"]);
  });
});

Deno.test("fake upstream answers errors in the path's shape, for N requests", async () => {
  await withFake(async (fake) => {
    fake.setBehaviour({ error: { status: 429, message: "Slow down.", times: 1 } });
    const messages = [{ role: "user" as const, content: "hi there" }];
    await assert.rejects(
      () => openai(fake).chat.completions.create({ model: "m1", messages }),
      (error: unknown) => error instanceof OpenAI.RateLimitError && /Slow down/.test(error.message),
    );
    const completion = await openai(fake).chat.completions.create({ model: "m1", messages });
    assert.equal(completion.choices[0]?.message.content, REPLY);

    fake.setBehaviour({ error: { status: 529 } });
    for (let i = 0; i < 2; i++) {
      await assert.rejects(
        () => anthropic(fake).messages.create({ model: "m1", max_tokens: 5, messages }),
        (error: unknown) =>
          error instanceof Anthropic.APIError && error.status === 529 &&
          error.type === "overloaded_error",
      );
    }
  });
});

Deno.test("fake upstream can omit usage and report cached tokens", async () => {
  await withFake(async (fake) => {
    const messages = [{ role: "user" as const, content: "hi there" }];
    fake.setBehaviour({ omitUsage: true });
    const bare = await openai(fake).chat.completions.create({ model: "m1", messages });
    assert.equal(bare.usage, undefined);

    fake.setBehaviour({ cachedTokens: 1, cacheWriteTokens: 1 });
    const message = await anthropic(fake).messages.create({ model: "m", max_tokens: 9, messages });
    assert.equal(message.usage.cache_read_input_tokens, 1);
    assert.equal(message.usage.cache_creation_input_tokens, 1);
    assert.equal(message.usage.input_tokens, INPUT_TOKENS - 2);
  });
});

const streamRequest = (fake: FakeUpstream) =>
  fetch(`${fake.url}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      max_tokens: 50,
      stream: true,
      messages: [{ role: "user", content: "hi there" }],
    }),
  });

Deno.test("fake upstream breaks a stream after K events", async () => {
  await withFake(async (fake) => {
    fake.setBehaviour({ breakAfter: 2 });
    const response = await streamRequest(fake);
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const event of readSse(response.body!)) seen.push(event.event ?? "");
    });
    assert.deepEqual(seen, ["message_start", "content_block_start"]);
  });
});

/** A gate that tells when something starts waiting on it (awaiting a thenable calls `then`). */
function watchedGate(): { gate: Promise<void>; waited: Promise<void>; open: () => void } {
  const opened = Promise.withResolvers<void>();
  const waited = Promise.withResolvers<void>();
  const gate = {
    then(...args: Parameters<Promise<void>["then"]>) {
      waited.resolve();
      return opened.promise.then(...args);
    },
  } as Promise<void>;
  return { gate, waited: waited.promise, open: opened.resolve };
}

Deno.test("fake upstream holds a stream on a gate after K events", async () => {
  await withFake(async (fake) => {
    const { gate, waited, open } = watchedGate();
    fake.setBehaviour({ gate, gateAfter: 1 });
    const response = await streamRequest(fake);
    const events = readSse(response.body!);
    assert.equal((await events.next()).value?.event, "message_start");
    const second = events.next();
    // The fake waits on the gate before its second event, so the wait comes first.
    const first = await Promise.race([waited.then(() => "gate"), second.then(() => "event")]);
    assert.equal(first, "gate");
    open();
    assert.equal((await second).value?.event, "content_block_start");
    await events.return(undefined);
  });
});

Deno.test("fake upstream close() aborts a gated stream and releases a hang", async () => {
  const fake = await startFakeUpstream();
  fake.setBehaviour({ gate: new Promise(() => {}), gateAfter: 1 });
  const response = await streamRequest(fake);
  const events = readSse(response.body!);
  await events.next();
  fake.setBehaviour({ hang: true });
  const hung = streamRequest(fake);
  await fake.received(2);
  const pending = events.next();
  const closing = fake.close();
  await assert.rejects(() => pending);
  assert.equal((await hung).status, 503);
  await (await hung).body?.cancel();
  await closing;
});

Deno.test("fake upstream plays scripted replies: tool calls and reasoning, then text", async () => {
  await withFake(async (fake) => {
    const call = { id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' };
    fake.setBehaviour({
      replies: [
        { text: "", reasoning: { text: "Look it up.", opaque: "sig-1" }, toolCalls: [call] },
        { text: "Sunny." },
      ],
    });
    const messages = [{ role: "user" as const, content: "weather?" }];
    const runner = openai(fake).chat.completions.stream({ model: "m1", messages });
    const first = await runner.finalChatCompletion();
    assert.equal(first.choices[0]?.finish_reason, "tool_calls");
    const made = first.choices[0]?.message.tool_calls?.[0];
    assert.equal(made?.type, "function");
    if (made?.type === "function") {
      assert.deepEqual(made.function, { name: "get_weather", arguments: '{"city":"Paris"}' });
    }
    const message = await anthropic(fake).messages.create({
      model: "m1",
      max_tokens: 50,
      messages,
    });
    assert.deepEqual(message.content, [{ type: "text", text: "Sunny." }]);
  });
});

Deno.test("fake upstream sends the protocol's error event mid-stream", async () => {
  await withFake(async (fake) => {
    fake.setBehaviour({ midStreamError: { afterEvents: 3, message: "boom" } });
    const response = await streamRequest(fake);
    const seen: string[] = [];
    for await (const event of readSse(response.body!)) seen.push(event.event ?? "");
    assert.deepEqual(seen, ["message_start", "content_block_start", "ping", "error"]);
  });
});

Deno.test("fake upstream replays a transcript verbatim", async () => {
  await withFake(async (fake) => {
    const sse = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    fake.setBehaviour({ transcript: { sse, body: { recorded: true } } });
    assert.equal(await (await streamRequest(fake)).text(), sse);
    const response = await fetch(`${fake.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m1", messages: [] }),
    });
    assert.deepEqual(await response.json(), { recorded: true });
  });
});
