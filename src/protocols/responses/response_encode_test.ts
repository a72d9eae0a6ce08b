import assert from "node:assert/strict";
import OpenAI from "openai";
import type { IrResponse } from "../../translate/ir.ts";
import { decodeResponsesRequest } from "./request_decode.ts";
import { decodeResponsesResponse } from "./response_decode.ts";
import { encodeResponsesResponse } from "./response_encode.ts";
import { answerContext, CASES, fixtureJson, hasFixture, irRequest } from "./test_support.ts";

const ANSWERED = CASES.filter((name) => hasFixture(name, "response.json"));

/** The openai SDK's reading of a whole `response` body, as if the API had sent it. */
async function sdkReading(body: Record<string, unknown>) {
  const sdk = new OpenAI({
    apiKey: "sk-test",
    baseURL: "http://sdk.invalid/v1",
    maxRetries: 0,
    fetch: () => Promise.resolve(Response.json(body)),
  });
  return await sdk.responses.create({ model: "client-model", input: "hi" });
}

for (const name of ANSWERED) {
  Deno.test(`responses response encode: ${name} reads back the same, and the SDK takes it`, async () => {
    const answer = decodeResponsesResponse(fixtureJson(name, "response.json"));
    const request = decodeResponsesRequest(fixtureJson(name, "request.json"));
    const body = encodeResponsesResponse(answer, answerContext({ request }));
    assert.equal(body.model, "client-model");
    const again = decodeResponsesResponse(body);
    assert.deepEqual(again.parts, answer.parts);
    assert.equal(again.finish, answer.finish);
    assert.deepEqual(again.usage, answer.usage);
    const read = await sdkReading(body);
    const text = answer.parts.flatMap((part) => part.type === "text" ? [part.text] : []).join("");
    assert.equal(read.output_text, text);
    assert.equal(
      read.status,
      name === "length" || name === "content_filter" ? "incomplete" : "completed",
    );
  });
}

const ANSWER: IrResponse = {
  id: "upstream-id",
  model: "claude-sonnet-4",
  created: 1_754_000_000,
  parts: [
    { type: "reasoning", text: "think", opaque: { kind: "anthropic_signature", value: "EqQB" } },
    { type: "text", text: "Hi " },
    { type: "refusal", text: "but no." },
    { type: "tool_call", id: "toolu_1", name: "apply_patch", arguments: '{"input":"*** P"}' },
    { type: "tool_call", id: "toolu_2", name: "get_time", arguments: '{"zone":"UTC"}' },
  ],
  finish: "tool_calls",
  usage: { input_tokens: 120, output_tokens: 30, cached_tokens: 100, cache_write_tokens: 20 },
};

Deno.test("responses response encode: a messages upstream's answer for a Codex-style client", () => {
  const request = irRequest({ tools: [{ kind: "custom", name: "apply_patch" }] });
  const clientBody = { reasoning: { effort: "high" }, store: false, instructions: "I" };
  const body = encodeResponsesResponse(ANSWER, answerContext({ request, body: clientBody }));
  assert.deepEqual(body.output, [
    {
      id: "rs_2",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "think" }],
      // Another provider's state, wrapped so it comes back with the history.
      encrypted_content: "tollgate:anthropic_signature:EqQB",
    },
    {
      id: "msg_3",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [
        { type: "output_text", annotations: [], logprobs: [], text: "Hi " },
        { type: "refusal", refusal: "but no." },
      ],
    },
    {
      id: "ctc_4",
      type: "custom_tool_call",
      status: "completed",
      call_id: "toolu_1",
      name: "apply_patch",
      input: "*** P",
    },
    {
      id: "fc_5",
      type: "function_call",
      status: "completed",
      call_id: "toolu_2",
      name: "get_time",
      arguments: '{"zone":"UTC"}',
    },
  ]);
  assert.equal(body.id, "resp_1");
  assert.equal(body.status, "completed");
  assert.equal(body.created_at, 1_754_000_000);
  assert.equal(body.completed_at, 1_754_006_400);
  assert.equal(body.instructions, "I");
  assert.deepEqual(body.reasoning, { effort: "high", summary: null });
  assert.equal(body.store, false);
  assert.deepEqual(body.usage, {
    input_tokens: 120,
    input_tokens_details: { cached_tokens: 100, cache_write_tokens: 20 },
    output_tokens: 30,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 150,
  });
});

Deno.test("responses response encode: incomplete answers and unknown usage", () => {
  const encode = (finish: IrResponse["finish"]) =>
    encodeResponsesResponse({ ...ANSWER, parts: [], finish, usage: undefined }, answerContext());
  assert.deepEqual(encode("length").incomplete_details, { reason: "max_output_tokens" });
  assert.deepEqual(encode("content_filter").incomplete_details, { reason: "content_filter" });
  assert.equal(encode("content_filter").status, "incomplete");
  assert.equal(encode("content_filter").completed_at, undefined);
  // Messages' pause_turn ends the turn: the client sees a completed response.
  assert.equal(encode("pause").status, "completed");
  assert.equal(encode("stop").usage, null);
});

Deno.test("responses response encode: upstream item ids of the right kind are kept", () => {
  const body = encodeResponsesResponse({
    ...ANSWER,
    parts: [
      {
        type: "reasoning",
        text: "",
        itemId: "rs_up",
        opaque: { kind: "openai_encrypted", value: "g" },
      },
      { type: "tool_call", id: "c", name: "f", arguments: "{}", itemId: "fc_up" },
      { type: "tool_call", id: "d", name: "f", arguments: "{}", itemId: "detail-7" },
    ],
  }, answerContext());
  const output = body.output as Record<string, unknown>[];
  assert.deepEqual(output.map((item) => item.id), ["rs_up", "fc_up", "fc_2"]);
  assert.deepEqual(output[0], {
    id: "rs_up",
    type: "reasoning",
    summary: [],
    encrypted_content: "g",
  });
});
