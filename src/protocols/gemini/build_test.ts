import assert from "node:assert/strict";
import type { TextReply } from "../types.ts";
import { buildGenerateContentEvents, buildGenerateContentResponse } from "./build.ts";
import { gemini } from "./index.ts";

const reply: TextReply = {
  id: "0123abcd",
  model: "echo",
  created: 1_754_006_400,
  deltas: ["Hello", " there"],
  finish: "stop",
  usage: { input_tokens: 4, output_tokens: 2, cached_tokens: 0, cache_write_tokens: 0 },
};

Deno.test("gemini echo reply: a GenerateContentResponse", () => {
  assert.deepEqual(buildGenerateContentResponse(reply), {
    candidates: [{
      content: { parts: [{ text: "Hello there" }], role: "model" },
      finishReason: "STOP",
      index: 0,
    }],
    usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 2, totalTokenCount: 6 },
    modelVersion: "echo",
    responseId: "0123abcd",
  });
  assert.equal(gemini.usageFromResponse(gemini.buildReply(reply, {}))?.output_tokens, 2);
});

Deno.test("gemini echo stream: a chunk a delta, then the finish reason and usage", () => {
  const events = buildGenerateContentEvents({ ...reply, finish: "length" });
  assert.ok(events.every((event) => event.event === undefined));
  const chunks = events.map((event) => JSON.parse(event.data));
  assert.deepEqual(
    chunks.map((chunk) => chunk.candidates[0].content.parts),
    [[{ text: "Hello" }], [{ text: " there" }], [{ text: "" }]],
  );
  assert.deepEqual(chunks.map((chunk) => chunk.candidates[0].finishReason), [
    undefined,
    undefined,
    "MAX_TOKENS",
  ]);
  assert.equal(chunks[2].usageMetadata.totalTokenCount, 6);
  assert.ok(chunks.every((chunk) => chunk.responseId === "0123abcd"));
  const tap = gemini.createUsageTap();
  for (const event of events) tap.observe(event);
  assert.deepEqual(tap.usage(), reply.usage);
  assert.equal(events.map(gemini.eventText).join(""), "Hello there");
});

Deno.test("gemini echo stream: no usage, no usageMetadata", () => {
  const { usage: _, ...bare } = reply;
  const last = JSON.parse(buildGenerateContentEvents(bare).at(-1)!.data);
  assert.equal(last.usageMetadata, undefined);
  assert.equal(buildGenerateContentResponse(bare).usageMetadata, undefined);
});
