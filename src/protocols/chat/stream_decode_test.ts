import assert from "node:assert/strict";
import type { SseEvent } from "../../translate/sse.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { decodeChatResponse } from "./response_decode.ts";
import { createChatStreamDecoder } from "./stream_decode.ts";
import { CASES, fixtureJson, fixtureStream, foldEvents, hasFixture } from "./test_support.ts";

function decodeAll(events: SseEvent[]): IrEvent[] {
  const decoder = createChatStreamDecoder();
  return [...events.flatMap((event) => decoder.decode(event)), ...decoder.end()];
}

const sse = (...chunks: unknown[]): SseEvent[] =>
  chunks.map((chunk) => ({ data: typeof chunk === "string" ? chunk : JSON.stringify(chunk) }));

for (const name of CASES.filter((name) => hasFixture(name, "response.json"))) {
  Deno.test(`chat stream decode: ${name} transcript streams what its whole answer holds`, () => {
    const folded = foldEvents(decodeAll(fixtureStream(name)));
    const whole = decodeChatResponse(fixtureJson(name, "response.json"));
    assert.equal(folded.error, undefined);
    assert.equal(folded.id, whole.id);
    assert.equal(folded.model, whole.model);
    assert.deepEqual(folded.parts, whole.parts);
    assert.equal(folded.finish, whole.finish);
    assert.deepEqual(folded.usage, whole.usage);
  });
}

Deno.test("chat stream decode: error_before_output is one error event and nothing else", () => {
  assert.deepEqual(decodeAll(fixtureStream("error_before_output")), [{
    type: "error",
    error: {
      status: 500,
      type: "server_error",
      message: "The server had an error while processing your request. Sorry about that!",
    },
  }]);
});

Deno.test("chat stream decode: error_after_output keeps the text, then the error's own status", () => {
  const folded = foldEvents(decodeAll(fixtureStream("error_after_output")));
  assert.deepEqual(folded.parts, [{ type: "text", text: "Once upon a time" }]);
  assert.equal(folded.finish, undefined);
  assert.deepEqual(folded.error, { status: 502, message: "Provider disconnected" });
});

const delta = (d: Record<string, unknown>, finish: string | null = null, extra = {}) => ({
  id: "x",
  model: "m",
  choices: [{ index: 0, delta: d, finish_reason: finish, ...extra }],
});
const call = (fields: Record<string, unknown>) => delta({ tool_calls: [fields] });

/** Streams of compatible servers, and the answer each folds into. */
const DIALECTS: [string, SseEvent[], Partial<ReturnType<typeof foldEvents>>][] = [
  [
    "Gemini: complete calls without `index`, told apart by id",
    sse(
      call({ id: "a", type: "function", function: { name: "f", arguments: '{"x":1}' } }),
      call({ id: "b", type: "function", function: { name: "g", arguments: "{}" } }),
      delta({}, "tool_calls"),
    ),
    {
      parts: [
        { type: "tool_call", id: "a", name: "f", arguments: '{"x":1}' },
        { type: "tool_call", id: "b", name: "g", arguments: "{}" },
      ],
      finish: "tool_calls",
    },
  ],
  [
    "a call whose name comes after its first piece",
    sse(
      call({ index: 0, id: "c", function: { arguments: "{" } }),
      call({ index: 0, function: { name: "f", arguments: "}" } }),
      delta({}, "tool_calls"),
    ),
    { parts: [{ type: "tool_call", id: "c", name: "f", arguments: "{}" }] },
  ],
  [
    "id and name repeated on every delta, and a late piece of an ended call",
    sse(
      call({ index: 0, id: "c", function: { name: "f", arguments: "{" } }),
      call({ index: 0, id: "c", function: { name: "f", arguments: "}" } }),
      call({ index: 1, id: "d", function: { name: "g", arguments: "" } }),
      call({ index: 0, function: { arguments: "lost" } }),
      call({ index: 1, function: { arguments: "{}" } }),
    ),
    {
      parts: [
        { type: "tool_call", id: "c", name: "f", arguments: "{}" },
        { type: "tool_call", id: "d", name: "g", arguments: "{}" },
      ],
    },
  ],
  [
    "text, a call, more text; finish_reason on the chunk with content; a stop that called tools",
    sse(
      delta({ role: "assistant", content: "" }),
      delta({ content: "Let me look." }),
      call({ index: 0, id: "c", type: "function", function: { name: "f", arguments: "{}" } }),
      delta({ content: "Done." }, "stop"),
      delta({ content: "ignored after finish" }, "stop"),
    ),
    {
      parts: [
        { type: "text", text: "Let me look." },
        { type: "tool_call", id: "c", name: "f", arguments: "{}" },
        { type: "text", text: "Done." },
      ],
      finish: "tool_calls",
    },
  ],
  [
    "usage null everywhere, usage on the finish chunk (DeepSeek), [DONE], garbage",
    sse(
      { ...delta({ content: "hi" }), usage: null },
      {
        ...delta({ content: "" }, "stop"),
        usage: { prompt_tokens: 5, completion_tokens: 1, prompt_cache_hit_tokens: 0 },
      },
      "not json",
      "[DONE]",
    ),
    {
      parts: [{ type: "text", text: "hi" }],
      finish: "stop",
      usage: { input_tokens: 5, output_tokens: 1, cached_tokens: 0, cache_write_tokens: 0 },
    },
  ],
  [
    "vLLM `reasoning`, then content, and the stop string that matched",
    sse(
      delta({ reasoning: "think" }),
      delta({ reasoning: "ing" }),
      delta({ content: "ok" }, "stop", { stop_reason: "###" }),
    ),
    {
      parts: [{ type: "reasoning", text: "thinking" }, { type: "text", text: "ok" }],
      finish: "stop",
      stopSequence: "###",
    },
  ],
  [
    "OpenRouter: two signed thinking blocks are two reasoning parts",
    sse(
      delta({
        reasoning: "a",
        reasoning_details: [{
          type: "reasoning.text",
          text: "a",
          format: "anthropic-claude-v1",
          index: 0,
        }],
      }),
      delta({
        reasoning_details: [{
          type: "reasoning.text",
          signature: "S1",
          format: "anthropic-claude-v1",
          index: 0,
        }],
      }),
      delta({
        reasoning: "b",
        reasoning_details: [{
          type: "reasoning.text",
          text: "b",
          format: "anthropic-claude-v1",
          index: 1,
        }],
      }),
      delta({
        reasoning_details: [{
          type: "reasoning.text",
          signature: "S2",
          format: "anthropic-claude-v1",
          index: 1,
        }],
      }),
    ),
    {
      parts: [
        { type: "reasoning", text: "a", opaque: { kind: "anthropic_signature", value: "S1" } },
        { type: "reasoning", text: "b", opaque: { kind: "anthropic_signature", value: "S2" } },
      ],
    },
  ],
  [
    "tollgate's own chat stream: the signed entry restates the text streamed before it",
    sse(
      delta({ reasoning_content: "a" }),
      delta({ reasoning_content: "b" }),
      delta({
        reasoning_details: [{
          type: "reasoning.text",
          text: "ab",
          signature: "S",
          format: "anthropic-claude-v1",
          index: 0,
        }],
      }),
    ),
    {
      parts: [{
        type: "reasoning",
        text: "ab",
        opaque: { kind: "anthropic_signature", value: "S" },
      }],
    },
  ],
  [
    "OpenRouter redacted thinking and a wrapped opaque value",
    sse(
      delta({
        reasoning_details: [{
          type: "reasoning.encrypted",
          data: "R",
          format: "anthropic-claude-v1",
        }],
      }),
      delta({
        reasoning_details: [{
          type: "reasoning.encrypted",
          data: "tollgate:openai_encrypted:E",
          format: "unknown",
        }],
      }),
    ),
    {
      parts: [
        { type: "reasoning", text: "", opaque: { kind: "anthropic_redacted", value: "R" } },
        { type: "reasoning", text: "", opaque: { kind: "openai_encrypted", value: "E" } },
      ],
    },
  ],
  [
    "a custom tool's input pieces become `{input}` JSON",
    sse(
      call({ index: 0, id: "c", type: "custom", custom: { name: "apply_patch", input: "" } }),
      call({ index: 0, custom: { input: 'say "hi"\n' } }),
    ),
    {
      parts: [{
        type: "tool_call",
        id: "c",
        name: "apply_patch",
        arguments: '{"input":"say \\"hi\\"\\n"}',
      }],
    },
  ],
  [
    "legacy function_call deltas",
    sse(
      delta({ function_call: { name: "f", arguments: "" } }),
      delta({ function_call: { arguments: '{"a":1}' } }),
      delta({}, "function_call"),
    ),
    {
      parts: [{ type: "tool_call", id: "call_x_0", name: "f", arguments: '{"a":1}' }],
      finish: "tool_calls",
    },
  ],
  [
    "a refusal",
    sse(delta({ refusal: "I can't" }), delta({ refusal: " help." }, "stop")),
    { parts: [{ type: "refusal", text: "I can't help." }], finish: "stop" },
  ],
  [
    "a stream cut off mid-call ends the part, with no finish",
    sse(call({ index: 0, id: "c", function: { name: "f", arguments: '{"a"' } })),
    { parts: [{ type: "tool_call", id: "c", name: "f", arguments: '{"a"' }], finish: undefined },
  ],
  [
    "an error chunk reports its usage first, and nothing follows it",
    sse(
      delta({ content: "partial" }),
      {
        error: { message: "overloaded", type: "overloaded_error" },
        usage: { prompt_tokens: 3, completion_tokens: 1 },
      },
      delta({ content: "never" }),
    ),
    {
      parts: [{ type: "text", text: "partial" }],
      usage: { input_tokens: 3, output_tokens: 1, cached_tokens: 0, cache_write_tokens: 0 },
      error: { status: 529, type: "overloaded_error", message: "overloaded" },
    },
  ],
];

for (const [name, events, expected] of DIALECTS) {
  Deno.test(`chat stream decode: ${name}`, () => {
    const folded = foldEvents(decodeAll(events));
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(folded[key as keyof typeof folded], value, key);
    }
  });
}

Deno.test("chat stream decode: an error at the first chunk comes without a start", () => {
  const decoder = createChatStreamDecoder();
  const events = decoder.decode({ data: '{"error":{"message":"bad","code":429}}' });
  assert.deepEqual(events, [{ type: "error", error: { status: 429, message: "bad" } }]);
  assert.deepEqual(decoder.end(), []);
});

Deno.test("chat stream decode: finish_reason error without an error object is an error", () => {
  const events = decodeAll(sse(delta({ content: "a" }), delta({}, "error")));
  assert.deepEqual(events.at(-1), {
    type: "error",
    error: { status: 502, message: "the generation failed" },
  });
});

Deno.test("chat stream decode: an empty stream decodes to nothing", () => {
  assert.deepEqual(decodeAll([]), []);
});
