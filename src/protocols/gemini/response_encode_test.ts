import assert from "node:assert/strict";
import type { IrResponse } from "../../translate/ir.ts";
import { decodeGeminiResponse } from "./response_decode.ts";
import { encodeGeminiResponse, partsOf } from "./response_encode.ts";
import { answerContext } from "./test_support.ts";

const usage = {
  input_tokens: 100,
  output_tokens: 40,
  cached_tokens: 60,
  cache_write_tokens: 0,
  reasoning_tokens: 10,
};

Deno.test("gemini response encode: a GenerateContentResponse as @google/genai reads it", () => {
  const response: IrResponse = {
    id: "msg_up",
    model: "claude-sonnet-4-5",
    parts: [
      { type: "reasoning", text: "Think.", opaque: { kind: "anthropic_signature", value: "sig" } },
      { type: "text", text: "Calling." },
      { type: "tool_call", id: "toolu_1", name: "read_file", arguments: '{"file_path":"a"}' },
    ],
    finish: "tool_calls",
    usage,
  };
  assert.deepEqual(encodeGeminiResponse(response, answerContext({ model: "gemini-2.5-pro" })), {
    candidates: [{
      content: {
        parts: [
          { text: "Think.", thought: true },
          { text: "Calling.", thoughtSignature: "tollgate:anthropic_signature:sig" },
          { functionCall: { id: "toolu_1", name: "read_file", args: { file_path: "a" } } },
        ],
        role: "model",
      },
      finishReason: "STOP",
      index: 0,
    }],
    usageMetadata: {
      promptTokenCount: 100,
      candidatesTokenCount: 30,
      totalTokenCount: 140,
      cachedContentTokenCount: 60,
      thoughtsTokenCount: 10,
    },
    modelVersion: "gemini-2.5-pro",
    responseId: "1",
  });
});

Deno.test("gemini response encode: signatures ride on the next part that is not a thought", () => {
  const encrypted = { kind: "openai_encrypted" as const, value: "E" };
  const redacted = { kind: "anthropic_redacted" as const, value: "R" };
  assert.deepEqual(
    partsOf([
      { type: "reasoning", text: "", opaque: redacted },
      { type: "reasoning", text: "More.", opaque: encrypted },
      { type: "tool_call", id: "c", name: "f", arguments: "{}" },
      { type: "reasoning", text: "Last.", opaque: encrypted },
    ]),
    [
      { text: "", thoughtSignature: "tollgate:anthropic_redacted:R" },
      { text: "More.", thought: true },
      {
        functionCall: { id: "c", name: "f", args: {} },
        thoughtSignature: "tollgate:openai_encrypted:E",
      },
      { text: "Last.", thought: true },
      { text: "", thoughtSignature: "tollgate:openai_encrypted:E" },
    ],
  );
  assert.deepEqual(partsOf([{ type: "refusal", text: "I can't." }, { type: "text", text: "" }]), [
    { text: "I can't." },
  ]);
});

Deno.test("gemini response encode: finish reasons, and the input estimate without usage", () => {
  const finishes: [IrResponse["finish"], string][] = [
    ["stop", "STOP"],
    ["tool_calls", "STOP"],
    ["pause", "STOP"],
    ["length", "MAX_TOKENS"],
    ["content_filter", "SAFETY"],
  ];
  for (const [finish, reason] of finishes) {
    const body = encodeGeminiResponse(
      { id: "", model: "", parts: [], finish },
      answerContext({ inputTokensHint: 12 }),
    ) as { candidates: { finishReason: string; content: unknown }[]; usageMetadata: unknown };
    assert.equal(body.candidates[0]!.finishReason, reason);
    assert.deepEqual(body.candidates[0]!.content, { parts: [], role: "model" });
    assert.deepEqual(body.usageMetadata, {
      promptTokenCount: 12,
      candidatesTokenCount: 0,
      totalTokenCount: 12,
    });
  }
});

Deno.test("gemini response: IR -> Gemini -> IR keeps parts, finish and usage", () => {
  const response: IrResponse = {
    id: "x",
    model: "m",
    parts: [
      { type: "reasoning", text: "Hmm." },
      { type: "text", text: "Two calls." },
      { type: "tool_call", id: "c1", name: "a", arguments: '{"q":"x"}' },
      { type: "tool_call", id: "c2", name: "b", arguments: "{}" },
    ],
    finish: "tool_calls",
    usage,
  };
  const back = decodeGeminiResponse(encodeGeminiResponse(response, answerContext({ model: "m" })));
  assert.deepEqual(back.parts, response.parts);
  assert.equal(back.finish, "tool_calls");
  assert.deepEqual(back.usage, usage);
});
