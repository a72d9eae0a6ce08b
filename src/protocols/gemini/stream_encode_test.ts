import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { encodeSse } from "../../translate/sse.ts";
import { createGeminiStreamEncoder } from "./stream_encode.ts";
import {
  answerContext,
  chunksOf,
  decodeAll,
  fixtureStream,
  foldEvents,
  ODD,
  oddPart,
  parseSse,
} from "./test_support.ts";

const usage = {
  input_tokens: 9021,
  output_tokens: 162,
  cached_tokens: 8102,
  cache_write_tokens: 0,
  reasoning_tokens: 131,
};

/** A reasoning part signed by Anthropic, text, and a call streamed in pieces. */
const STREAM: IrEvent[] = [
  { type: "start", id: "msg_up", model: "claude-sonnet-4-5" },
  { type: "part_start", index: 0, part: { type: "reasoning" } },
  { type: "reasoning_delta", index: 0, text: "Read it " },
  { type: "reasoning_delta", index: 0, text: "first." },
  { type: "reasoning_opaque", index: 0, opaque: { kind: "anthropic_signature", value: "sig" } },
  { type: "part_end", index: 0 },
  { type: "part_start", index: 1, part: { type: "text" } },
  { type: "text_delta", index: 1, text: "I'll read " },
  { type: "text_delta", index: 1, text: "" },
  { type: "text_delta", index: 1, text: "`main.ts`." },
  { type: "part_end", index: 1 },
  { type: "part_start", index: 2, part: { type: "tool_call", id: "toolu_1", name: "read_file" } },
  { type: "arguments_delta", index: 2, json: '{"file_pa' },
  { type: "arguments_delta", index: 2, json: 'th":"main.ts"}' },
  { type: "part_end", index: 2 },
  { type: "usage", usage },
  { type: "finish", reason: "tool_calls" },
];

function encodeAll(events: IrEvent[], context = answerContext({ model: "gemini-2.5-pro" })) {
  const encoder = createGeminiStreamEncoder(context);
  return [...events.flatMap((event) => encoder.encode(event)), ...encoder.end()];
}

Deno.test("gemini stream encode: chunks as @google/genai parses them", () => {
  const events = encodeAll(STREAM);
  const text = events.map(encodeSse).join("");
  assert.ok(!text.includes("event:") && !text.startsWith(":") && !text.includes("\n:"));
  assert.ok(!text.includes("[DONE]"));
  const chunks = chunksOf(events);
  for (const chunk of chunks) {
    // What the SDK's chat takes as a valid answer: a candidate whose content has the model's
    // role and parts, none of them empty; the same id and model on every chunk.
    const candidate = chunk.candidates[0];
    assert.equal(candidate.content.role, "model");
    assert.ok(candidate.content.parts.length > 0);
    assert.ok(candidate.content.parts.every((part: object) => Object.keys(part).length > 0));
    assert.equal(candidate.index, 0);
    assert.equal(chunk.modelVersion, "gemini-2.5-pro");
    assert.equal(chunk.responseId, "1");
  }
  assert.deepEqual(chunks.map((chunk) => chunk.candidates[0].content.parts), [
    [{ text: "Read it ", thought: true }],
    [{ text: "first.", thought: true }],
    [{ text: "I'll read ", thoughtSignature: "tollgate:anthropic_signature:sig" }],
    [{ text: "`main.ts`." }],
    [{ functionCall: { id: "toolu_1", name: "read_file", args: { file_path: "main.ts" } } }],
    [{ text: "" }],
  ]);
  const finishes = chunks.map((chunk) => chunk.candidates[0].finishReason);
  assert.deepEqual(finishes, [undefined, undefined, undefined, undefined, undefined, "STOP"]);
  assert.deepEqual(chunks.map((chunk) => chunk.usageMetadata !== undefined), [
    false,
    false,
    false,
    false,
    false,
    true,
  ]);
  assert.deepEqual(chunks.at(-1)!.usageMetadata, {
    promptTokenCount: 9021,
    candidatesTokenCount: 31,
    totalTokenCount: 9183,
    cachedContentTokenCount: 8102,
    thoughtsTokenCount: 131,
  });
});

Deno.test("gemini stream encode: what it sends decodes back to the same answer", () => {
  const sent = parseSse(encodeAll(STREAM).map(encodeSse).join(""));
  const folded = foldEvents(decodeAll(sent));
  assert.deepEqual(folded.parts, [
    // The signature rode in thoughtSignature and came back as the state it was.
    {
      type: "reasoning",
      text: "Read it first.",
      opaque: { kind: "anthropic_signature", value: "sig" },
    },
    { type: "text", text: "I'll read `main.ts`." },
    { type: "tool_call", id: "toolu_1", name: "read_file", arguments: '{"file_path":"main.ts"}' },
  ]);
  assert.equal(folded.finish, "tool_calls");
  assert.deepEqual(folded.usage, usage);
});

Deno.test("gemini stream encode: a Gemini upstream's transcript relays through the IR", () => {
  const source = fixtureStream("stream_tool_call.sse");
  const relayed = parseSse(encodeAll(decodeAll(source)).map(encodeSse).join(""));
  assert.deepEqual(foldEvents(decodeAll(relayed)).parts, foldEvents(decodeAll(source)).parts);
});

Deno.test("gemini stream encode: a signature with no part after it closes the stream", () => {
  const chunks = chunksOf(encodeAll([
    { type: "start", id: "x", model: "m" },
    { type: "part_start", index: 0, part: { type: "reasoning" } },
    { type: "reasoning_opaque", index: 0, opaque: { kind: "openai_encrypted", value: "E1" } },
    { type: "part_end", index: 0 },
    { type: "part_start", index: 1, part: { type: "reasoning" } },
    { type: "reasoning_delta", index: 1, text: "Again." },
    { type: "reasoning_opaque", index: 1, opaque: { kind: "openai_encrypted", value: "E2" } },
    { type: "part_end", index: 1 },
  ]));
  assert.deepEqual(chunks.map((chunk) => chunk.candidates[0].content.parts[0]), [
    { text: "", thoughtSignature: "tollgate:openai_encrypted:E1" },
    { text: "Again.", thought: true },
    { text: "", thoughtSignature: "tollgate:openai_encrypted:E2" },
  ]);
  assert.equal(chunks.at(-1)!.candidates[0].finishReason, "STOP");
});

Deno.test("gemini stream encode: text JSON must escape survives; a refusal is text", () => {
  const chunks = chunksOf(encodeAll([
    { type: "start", id: "x", model: "m" },
    ...oddPart(0, { type: "text" }),
    ...oddPart(1, { type: "refusal" }),
    ...oddPart(2, { type: "tool_call", id: "c", name: "f" }),
    { type: "finish", reason: "content_filter" },
  ]));
  assert.deepEqual(chunks.slice(0, 3).map((chunk) => chunk.candidates[0].content.parts[0]), [
    { text: ODD },
    { text: ODD },
    { functionCall: { id: "c", name: "f", args: { a: ODD } } },
  ]);
  assert.equal(chunks[3]!.candidates[0].finishReason, "SAFETY");
});

Deno.test("gemini stream encode: cut without finish or usage: STOP and the input estimate", () => {
  const chunks = chunksOf(encodeAll([
    { type: "start", id: "x", model: "m" },
    { type: "part_start", index: 0, part: { type: "text" } },
    { type: "text_delta", index: 0, text: "Hi" },
  ], answerContext({ inputTokensHint: 30 })));
  assert.equal(chunks.length, 2);
  assert.equal(chunks[1]!.candidates[0].finishReason, "STOP");
  assert.deepEqual(chunks[1]!.usageMetadata, {
    promptTokenCount: 30,
    candidatesTokenCount: 0,
    totalTokenCount: 30,
  });
  const lengthCut = chunksOf(encodeAll([{ type: "finish", reason: "length" }]));
  assert.equal(lengthCut[0]!.candidates[0].finishReason, "MAX_TOKENS");
});

Deno.test("gemini stream encode: an error is one data line, then nothing", () => {
  const encoder = createGeminiStreamEncoder(answerContext());
  encoder.encode({ type: "start", id: "x", model: "m" });
  const error = new GatewayError(502, "upstream_error", "The upstream stream failed.");
  const events = encoder.error(error);
  assert.equal(events.length, 1);
  assert.equal(encodeSse(events[0]!).startsWith('data: {"error":{"code":502,'), true);
  assert.equal(JSON.parse(events[0]!.data).error.status, "UNAVAILABLE");
  assert.deepEqual(encoder.encode({ type: "part_start", index: 0, part: { type: "text" } }), []);
  assert.deepEqual(encoder.end(), []);
  assert.deepEqual(encoder.error(error), []);
});
