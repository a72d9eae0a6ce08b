import assert from "node:assert/strict";
import { decodeGeminiResponse } from "./response_decode.ts";
import { chunkOf, decodeAll, fixtureJson, fixtureStream, foldEvents, sse } from "./test_support.ts";

Deno.test("gemini stream decode: the tool-call transcript streams what its whole answer holds", () => {
  const events = decodeAll(fixtureStream("stream_tool_call.sse"));
  const folded = foldEvents(events);
  const whole = decodeGeminiResponse(fixtureJson("response_tool_call.json"));
  assert.equal(folded.error, undefined);
  assert.equal(folded.id, whole.id);
  assert.equal(folded.model, whole.model);
  assert.deepEqual(folded.parts, whole.parts);
  assert.equal(folded.finish, "tool_calls");
  assert.deepEqual(folded.usage, whole.usage);
  // Part by part: the two thought chunks are one reasoning part, the call comes whole after
  // an empty reasoning part holding its signature.
  assert.deepEqual(
    events.filter((event) => event.type !== "usage").map((event) => event.type),
    [
      "start",
      "part_start",
      "reasoning_delta",
      "reasoning_delta",
      "part_end",
      "part_start",
      "text_delta",
      "text_delta",
      "part_end",
      "part_start",
      "reasoning_opaque",
      "part_end",
      "part_start",
      "arguments_delta",
      "part_end",
      "finish",
    ],
  );
});

Deno.test("gemini stream decode: the last text arrives with the finish reason", () => {
  const folded = foldEvents(decodeAll(fixtureStream("stream_text.sse")));
  assert.deepEqual(folded, {
    id: "mZ3kaNaKLb-Xz7IPqv6FgAU",
    model: "gemini-2.5-flash",
    parts: [{
      type: "text",
      text: '`main.ts` parses the command line and starts the "serve" command.',
    }],
    finish: "stop",
    usage: { input_tokens: 12, output_tokens: 14, cached_tokens: 0, cache_write_tokens: 0 },
  });
});

Deno.test("gemini stream decode: an error chunk after output keeps the text and its usage", () => {
  const events = decodeAll(fixtureStream("stream_error.sse"));
  const folded = foldEvents(events);
  assert.deepEqual(folded.parts, [{ type: "text", text: "Once upon a " }]);
  assert.equal(folded.finish, undefined);
  assert.deepEqual(folded.usage?.output_tokens, 2, "what was produced is billed");
  assert.deepEqual(folded.error, {
    status: 503,
    type: "UNAVAILABLE",
    message: "The model is overloaded. Please try again later.",
  });
  assert.equal(events.at(-1)?.type, "error", "nothing follows the error, not even part_end");
});

Deno.test("gemini stream decode: an error before any output is the error alone", () => {
  const events = decodeAll(
    sse({ error: { code: 429, message: "Quota", status: "RESOURCE_EXHAUSTED" } }),
  );
  assert.deepEqual(events, [{
    type: "error",
    error: { status: 429, type: "RESOURCE_EXHAUSTED", message: "Quota" },
  }]);
});

Deno.test("gemini stream decode: parts switch kinds; parallel calls in one chunk; signatures kept", () => {
  const events = decodeAll(sse(
    chunkOf([{ text: "Plan.", thought: true }]),
    chunkOf([{ text: "", thought: true, thoughtSignature: "c2ln" }]),
    chunkOf([{ text: "Two lookups." }, { functionCall: { name: "a", args: { x: 1 } } }, {
      functionCall: { id: "own", name: "b", args: {} },
      thoughtSignature: "c2ln",
    }]),
    chunkOf([{ text: "Then more text." }]),
    chunkOf([], {
      finishReason: "STOP",
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 9, totalTokenCount: 14 },
    }),
  ));
  const folded = foldEvents(events);
  const signature = { kind: "gemini_signature", value: "c2ln" } as const;
  assert.deepEqual(folded.parts, [
    { type: "reasoning", text: "Plan.", opaque: signature },
    { type: "text", text: "Two lookups." },
    { type: "tool_call", id: "call_resp-1_0", name: "a", arguments: '{"x":1}' },
    { type: "reasoning", text: "", opaque: signature },
    { type: "tool_call", id: "own", name: "b", arguments: "{}" },
    { type: "text", text: "Then more text." },
  ]);
  assert.equal(folded.finish, "tool_calls");
});

Deno.test("gemini stream decode: a blocked prompt; chunks after the finish add only usage", () => {
  const blocked = foldEvents(decodeAll(sse({
    promptFeedback: { blockReason: "PROHIBITED_CONTENT" },
    usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 },
    responseId: "r",
  })));
  assert.equal(blocked.finish, "content_filter");
  assert.deepEqual(blocked.parts, []);
  const late = foldEvents(decodeAll(sse(
    chunkOf([{ text: "Hi" }], { finishReason: "MAX_TOKENS" }),
    chunkOf([{ text: "ignored" }], {
      finishReason: "STOP",
      usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1 },
    }),
  )));
  assert.deepEqual(late.parts, [{ type: "text", text: "Hi" }]);
  assert.equal(late.finish, "length");
  assert.equal(late.usage?.output_tokens, 1);
});

Deno.test("gemini stream decode: a stream cut without a finish closes its part", () => {
  const events = decodeAll(sse(chunkOf([{ text: "Hal" }]), { candidates: "junk" }));
  assert.deepEqual(events.slice(1), [
    { type: "part_start", index: 0, part: { type: "text" } },
    { type: "text_delta", index: 0, text: "Hal" },
    { type: "part_end", index: 0 },
  ]);
  assert.deepEqual(decodeAll([{ data: "not json" }]), []);
});
