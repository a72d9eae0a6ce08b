import assert from "node:assert/strict";
import OpenAI from "openai";
import { GatewayError } from "../../errors.ts";
import { encodeSse, type SseEvent } from "../../translate/sse.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { createChatStreamDecoder } from "./stream_decode.ts";
import { createChatStreamEncoder } from "./stream_encode.ts";
import {
  answerContext,
  CASES,
  fixtureStream,
  foldEvents,
  hasFixture,
  irRequest,
  ODD,
  oddPart,
} from "./test_support.ts";

const ANSWERED = CASES.filter((name) => hasFixture(name, "response.json"));

function irOf(name: string): IrEvent[] {
  const decoder = createChatStreamDecoder();
  return [...fixtureStream(name).flatMap((event) => decoder.decode(event)), ...decoder.end()];
}

function encodeAll(events: IrEvent[], context = answerContext()): SseEvent[] {
  const encoder = createChatStreamEncoder(context);
  return [...events.flatMap((event) => encoder.encode(event)), ...encoder.end()];
}

type Chunk = {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: {
    index: number;
    delta: Record<string, unknown> & { tool_calls?: Record<string, unknown>[] };
    finish_reason: string | null;
  }[];
  usage?: unknown;
};

/** The chunks of an encoded stream, checked against the grammar strict clients parse. */
function checkGrammar(events: SseEvent[], includeUsage: boolean): Chunk[] {
  assert.equal(events.at(-1)?.data, "[DONE]", "the stream ends with [DONE]");
  const chunks: Chunk[] = events.slice(0, -1).map((event) => JSON.parse(event.data));
  for (const chunk of chunks) {
    assert.equal(chunk.object, "chat.completion.chunk");
    assert.equal(typeof chunk.id, "string");
    assert.equal(typeof chunk.created, "number");
    assert.equal(chunk.model, "client-model");
    assert.ok(Array.isArray(chunk.choices));
    assert.equal("usage" in chunk, includeUsage, "usage is on every chunk exactly when asked");
    assert.equal(chunk.id, chunks[0]!.id, "one id");
  }
  assert.deepEqual(chunks[0]!.choices[0]!.delta, { role: "assistant", content: "", refusal: null });
  const finishes = chunks.filter((chunk) => chunk.choices[0]?.finish_reason);
  assert.equal(finishes.length, 1, "one finish_reason");
  const last = chunks.at(-1)!;
  if (includeUsage && last.choices.length === 0) assert.notEqual(last.usage, null);
  else assert.equal(last, finishes[0], "the finish chunk is last when no usage chunk follows");
  const started = new Set<number>();
  for (const chunk of chunks) {
    for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
      assert.equal(typeof call.index, "number");
      if (!started.has(call.index as number)) {
        started.add(call.index as number);
        assert.equal(typeof call.id, "string", "a call's first delta has its id");
        const body = call.type === "custom" ? call.custom : call.function;
        assert.deepEqual(Object.keys(body as object), [
          "name",
          call.type === "custom" ? "input" : "arguments",
        ]);
        assert.equal(Object.values(body as object)[1], "");
      } else assert.deepEqual(Object.keys(call), ["index", call.custom ? "custom" : "function"]);
    }
  }
  return chunks;
}

for (const name of ANSWERED) {
  Deno.test(`chat stream encode: ${name} in the chunk grammar, decoding back to the same answer`, () => {
    const ir = irOf(name);
    const events = encodeAll(ir);
    checkGrammar(events, true);
    const back = createChatStreamDecoder();
    const decoded = [...events.flatMap((event) => back.decode(event)), ...back.end()];
    const { id: _a, model: _b, ...original } = foldEvents(ir);
    const { id: _c, model, ...again } = foldEvents(decoded);
    assert.equal(model, "client-model");
    assert.deepEqual(again, original);
  });
}

/** Serves SSE events to the openai SDK as if it were the API. */
function sdkServing(events: SseEvent[]): OpenAI {
  const body = events.map(encodeSse).join("");
  return new OpenAI({
    apiKey: "sk-test",
    baseURL: "http://sdk.invalid/v1",
    maxRetries: 0,
    fetch: () =>
      Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } })),
  });
}

const PARAMS = { model: "client-model", messages: [{ role: "user" as const, content: "hi" }] };

for (const name of ["text", "parallel_tool_calls", "reasoning", "cached_usage"]) {
  Deno.test(`chat stream encode: the openai SDK accumulates ${name} (finalChatCompletion)`, async () => {
    const ir = foldEvents(irOf(name));
    const stream = sdkServing(encodeAll(irOf(name))).chat.completions.stream({
      ...PARAMS,
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const choice = completion.choices[0]!;
    const text = ir.parts.flatMap((part) => part.type === "text" ? [part.text] : []).join("");
    // The first delta's `content: ""` leaves an empty string beside tool calls.
    assert.equal(choice.message.content, text);
    const calls = ir.parts.filter((part) => part.type === "tool_call");
    assert.deepEqual(
      choice.message.tool_calls?.map((call) => call.type === "function" ? call.function : call),
      calls.length
        ? calls.map((call) => ({ name: call.name, arguments: call.arguments }))
        : undefined,
    );
    assert.equal(choice.finish_reason, ir.finish);
    assert.equal(completion.usage?.prompt_tokens, ir.usage?.input_tokens);
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, ir.usage?.cached_tokens);
  });
}

Deno.test("chat stream encode: without include_usage no chunk has usage, none is sent", async () => {
  const events = encodeAll(irOf("text"), answerContext({ includeUsage: false }));
  checkGrammar(events, false);
  const chunks = [];
  for await (
    const chunk of await sdkServing(events).chat.completions.create({ ...PARAMS, stream: true })
  ) {
    chunks.push(chunk);
  }
  assert.equal(
    chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""),
    "The capital of France is Paris.",
  );
});

const start: IrEvent = { type: "start", id: "up", model: "up-model", created: 1_700_000_000 };

Deno.test("chat stream encode: reasoning streams as reasoning_content, its signature once with the whole text", () => {
  const chunks = checkGrammar(
    encodeAll([
      start,
      { type: "part_start", index: 0, part: { type: "reasoning" } },
      { type: "reasoning_delta", index: 0, text: "a" },
      { type: "reasoning_delta", index: 0, text: "b" },
      { type: "reasoning_opaque", index: 0, opaque: { kind: "anthropic_signature", value: "S" } },
      { type: "part_end", index: 0 },
      { type: "finish", reason: "stop" },
    ]),
    true,
  );
  assert.deepEqual(chunks.map((chunk) => chunk.choices[0]?.delta), [
    { role: "assistant", content: "", refusal: null },
    { reasoning_content: "a" },
    { reasoning_content: "b" },
    {
      reasoning_details: [{
        type: "reasoning.text",
        text: "ab",
        id: null,
        format: "anthropic-claude-v1",
        index: 0,
        signature: "S",
      }],
    },
    {},
  ]);
  assert.equal(chunks[0]!.created, 1_700_000_000);
});

Deno.test("chat stream encode: a custom tool call's input goes out decoded, once whole", () => {
  const request = irRequest({ tools: [{ kind: "custom", name: "apply_patch" }] });
  const chunks = checkGrammar(
    encodeAll(
      [
        start,
        {
          type: "part_start",
          index: 0,
          part: { type: "tool_call", id: "c1", name: "apply_patch" },
        },
        { type: "arguments_delta", index: 0, json: '{"input":"*** Begin' },
        { type: "arguments_delta", index: 0, json: ' Patch"}' },
        { type: "part_end", index: 0 },
        { type: "finish", reason: "tool_calls" },
      ],
      answerContext({ request, includeUsage: false }),
    ).map((event) => event),
    false,
  ).map((chunk) => chunk.choices[0]);
  assert.deepEqual(chunks[1]!.delta.tool_calls, [
    { index: 0, id: "c1", type: "custom", custom: { name: "apply_patch", input: "" } },
  ]);
  assert.deepEqual(chunks[2]!.delta.tool_calls, [{
    index: 0,
    custom: { input: "*** Begin Patch" },
  }]);
  assert.equal(chunks[3]!.finish_reason, "tool_calls");
});

Deno.test("chat stream encode: an upstream that ends without finish still ends as clients expect", () => {
  const events = encodeAll([
    start,
    { type: "part_start", index: 0, part: { type: "tool_call", id: "c", name: "f" } },
    { type: "part_end", index: 0 },
  ]);
  const chunks = checkGrammar(events, true);
  assert.equal(chunks.at(-1)!.choices[0]!.finish_reason, "tool_calls");
  assert.deepEqual(checkGrammar(encodeAll([]), true).length, 2, "a role chunk and a finish chunk");
});

Deno.test("chat stream encode: pause ends as stop; events after finish, or after end, send nothing", () => {
  const encoder = createChatStreamEncoder(answerContext({ includeUsage: false }));
  encoder.encode(start);
  const finish = encoder.encode({ type: "finish", reason: "pause" });
  assert.equal(JSON.parse(finish[0]!.data).choices[0].finish_reason, "stop");
  assert.deepEqual(encoder.encode({ type: "part_start", index: 0, part: { type: "text" } }), []);
  assert.deepEqual(encoder.encode({ type: "finish", reason: "stop" }), []);
  assert.deepEqual(encoder.end().map((event) => event.data), ["[DONE]"]);
  assert.deepEqual(encoder.end(), []);
});

Deno.test("chat stream encode: error() is the error chunk the openai SDK raises, and the end", () => {
  const encoder = createChatStreamEncoder(answerContext());
  encoder.encode(start);
  const error = new GatewayError(502, "upstream_error", "The upstream stream failed.");
  const events = encoder.error(error);
  assert.deepEqual(JSON.parse(events[0]!.data), {
    error: {
      message: "The upstream stream failed.",
      type: "api_error",
      param: null,
      code: "upstream_error",
      request_id: "req_test",
    },
  });
  assert.deepEqual(encoder.end(), []);
});

Deno.test("chat stream encode: the SDK raises an APIError on the error chunk", async () => {
  const encoder = createChatStreamEncoder(answerContext());
  const events = [
    ...encoder.encode(start),
    ...encoder.encode({ type: "part_start", index: 0, part: { type: "text" } }),
    ...encoder.encode({ type: "text_delta", index: 0, text: "Once" }),
    ...encoder.error(
      new GatewayError(503, "channel:no_available_key", "The upstream is overloaded."),
    ),
  ];
  const stream = await sdkServing(events).chat.completions.create({ ...PARAMS, stream: true });
  await assert.rejects(async () => {
    for await (const _ of stream) { /* read to the error */ }
  }, OpenAI.APIError);
});

Deno.test("chat stream encode: delta chunks are the JSON of their objects, odd text and all", () => {
  for (const includeUsage of [true, false]) {
    const context = answerContext({
      includeUsage,
      model: 'model "x"\n',
      request: irRequest({ tools: [] }),
    });
    const events = encodeAll([
      { type: "start", id: "u", model: "m", created: 1.5 },
      ...oddPart(0, { type: "reasoning" }),
      ...oddPart(1, { type: "text" }),
      ...oddPart(2, { type: "refusal" }),
      ...oddPart(3, { type: "tool_call", id: "c", name: "f" }),
      { type: "finish", reason: "tool_calls" },
    ], context);
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data));
    assert.deepEqual(
      events.slice(0, -1).map((event) => event.data),
      chunks.map((c) => JSON.stringify(c)),
    );
    const deltas = chunks.slice(1, 6).map((chunk) => chunk.choices[0].delta);
    assert.deepEqual(deltas, [
      { reasoning_content: ODD },
      { content: ODD },
      { refusal: ODD },
      {
        tool_calls: [{
          index: 0,
          id: "c",
          type: "function",
          function: { name: "f", arguments: "" },
        }],
      },
      { tool_calls: [{ index: 0, function: { arguments: `{"a":${JSON.stringify(ODD)}}` } }] },
    ]);
    for (const chunk of chunks.slice(0, 6)) {
      assert.deepEqual(Object.keys(chunk), [
        "id",
        "object",
        "created",
        "model",
        "choices",
        ...(includeUsage ? ["usage"] : []),
      ]);
      assert.equal(chunk.model, 'model "x"\n');
      assert.equal(chunk.created, 1.5);
      assert.deepEqual(Object.keys(chunk.choices[0]), [
        "index",
        "delta",
        "logprobs",
        "finish_reason",
      ]);
    }
  }
});
