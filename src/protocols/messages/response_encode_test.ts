import assert from "node:assert/strict";
import type { IrResponse } from "../../translate/ir.ts";
import { toolId } from "./content.ts";
import { decodeMessagesResponse } from "./response_decode.ts";
import { encodeMessagesResponse } from "./response_encode.ts";
import { answerContext, CASES, fixtureJson, hasFixture } from "./test_support.ts";

for (const name of CASES.filter((name) => hasFixture(name, "response.json"))) {
  Deno.test(`messages response encode: ${name} answer comes out as the upstream said it`, () => {
    const upstream = fixtureJson(name, "response.json");
    const body = encodeMessagesResponse(decodeMessagesResponse(upstream), answerContext());
    assert.deepEqual(body, { ...upstream, id: "msg_1", model: "client-model" });
  });
}

const answer = (fields: Partial<IrResponse>): IrResponse => ({
  id: "up",
  model: "up-model",
  parts: [],
  finish: "stop",
  ...fields,
});

Deno.test("messages response encode: another provider's answer as a message", () => {
  const body = encodeMessagesResponse(
    answer({
      parts: [
        { type: "reasoning", text: "think", opaque: { kind: "openai_encrypted", value: "gAAA" } },
        { type: "reasoning", text: "", opaque: { kind: "anthropic_redacted", value: "RED" } },
        { type: "reasoning", text: "plain" },
        { type: "refusal", text: "I can't." },
        { type: "tool_call", id: "call.1", name: "f", arguments: '{"a":1' },
      ],
      finish: "tool_calls",
      usage: { input_tokens: 100, output_tokens: 20, cached_tokens: 60, cache_write_tokens: 0 },
    }),
    answerContext(),
  );
  assert.deepEqual(body, {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "client-model",
    content: [
      { type: "thinking", thinking: "think", signature: "tollgate:openai_encrypted:gAAA" },
      { type: "redacted_thinking", data: "RED" },
      { type: "thinking", thinking: "plain", signature: "" },
      { type: "text", text: "I can't." },
      { type: "tool_use", id: toolId("call.1"), name: "f", input: {} },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: {
      input_tokens: 40,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 60,
      output_tokens: 20,
      service_tier: "standard",
    },
  });
});

Deno.test("messages response encode: a stop sequence, and usage the upstream did not report", () => {
  const body = encodeMessagesResponse(
    answer({ parts: [{ type: "text", text: "a" }], stopSequence: "END" }),
    answerContext({ inputTokensHint: 33 }),
  );
  assert.equal(body.stop_reason, "stop_sequence");
  assert.equal(body.stop_sequence, "END");
  assert.deepEqual(body.usage, {
    input_tokens: 33,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 0,
    service_tier: "standard",
  });
});
