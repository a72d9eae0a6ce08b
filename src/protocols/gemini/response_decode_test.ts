import assert from "node:assert/strict";
import type { IrResponse } from "../../translate/ir.ts";
import { decodeGeminiResponse } from "./response_decode.ts";
import { chunkOf, fixtureJson } from "./test_support.ts";

Deno.test("gemini response decode: thoughts, text and a call without an id, with usage", () => {
  assert.deepEqual(
    decodeGeminiResponse(fixtureJson("response_tool_call.json")),
    {
      id: "Xb7kaOHdBOqqz7IP4cKt4Ag",
      model: "gemini-2.5-pro",
      parts: [
        {
          type: "reasoning",
          text: "**Reading the entry point**\n\nThe user wants to know what `main.ts` does. " +
            "I should read the file before I answer.",
        },
        { type: "text", text: "I'll read `main.ts` first, then answer." },
        // The call's signature: the state Gemini wants back with it.
        {
          type: "reasoning",
          text: "",
          opaque: {
            kind: "gemini_signature",
            value: "CiQB0e2Kb3mVfJ6J9y4cGfZ0sB4S0m3ZbEx7oEhnwuyvXoqW9ZwKdgHR7YpvkH0=",
          },
        },
        {
          type: "tool_call",
          id: "call_Xb7kaOHdBOqqz7IP4cKt4Ag_0",
          name: "read_file",
          arguments: '{"file_path":"/home/user/project/main.ts"}',
        },
      ],
      finish: "tool_calls",
      usage: {
        input_tokens: 9021,
        output_tokens: 162,
        cached_tokens: 8102,
        cache_write_tokens: 0,
        reasoning_tokens: 131,
      },
    } satisfies IrResponse,
  );
});

const FINISHES: [string | undefined, IrResponse["finish"]][] = [
  ["STOP", "stop"],
  ["MAX_TOKENS", "length"],
  ["SAFETY", "content_filter"],
  ["RECITATION", "content_filter"],
  ["PROHIBITED_CONTENT", "content_filter"],
  ["MALFORMED_FUNCTION_CALL", "stop"],
  ["OTHER", "stop"],
  ["SOMETHING_NEW", "stop"],
  [undefined, "stop"],
];

for (const [reason, finish] of FINISHES) {
  Deno.test(`gemini response decode: finishReason ${reason} is ${finish}`, () => {
    const body = chunkOf([{ text: "x" }], reason ? { finishReason: reason } : {});
    assert.equal(decodeGeminiResponse(body).finish, finish);
  });
}

Deno.test("gemini response decode: ids the upstream gave, parallel calls, created time", () => {
  const body = {
    ...chunkOf([
      { functionCall: { id: "fc-a", name: "a", args: { x: 1 } } },
      { functionCall: { name: "b" } },
      { inlineData: { mimeType: "image/png", data: "iVBO" } },
    ], { finishReason: "STOP" }),
    createTime: "2025-08-01T00:00:00.500Z",
  };
  const response = decodeGeminiResponse(body);
  assert.deepEqual(response.parts, [
    { type: "tool_call", id: "fc-a", name: "a", arguments: '{"x":1}' },
    { type: "tool_call", id: "call_resp-1_1", name: "b", arguments: "{}" },
  ]);
  assert.equal(response.created, 1_754_006_400);
  assert.equal(response.usage, undefined);
});

Deno.test("gemini response decode: a blocked prompt has no candidate", () => {
  const response = decodeGeminiResponse({
    promptFeedback: { blockReason: "SAFETY" },
    usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
  });
  assert.equal(response.finish, "content_filter");
  assert.deepEqual(response.parts, []);
  assert.equal(response.usage?.input_tokens, 8);
  assert.deepEqual(decodeGeminiResponse("garbage"), {
    id: "",
    model: "",
    parts: [],
    finish: "stop",
  });
});
