import assert from "node:assert/strict";
import type { IrResponse } from "../../translate/ir.ts";
import { decodeChatResponse } from "./response_decode.ts";
import { encodeChatResponse } from "./response_encode.ts";
import { answerContext, CASES, fixtureJson, hasFixture, irRequest } from "./test_support.ts";

for (const name of CASES.filter((name) => hasFixture(name, "response.json"))) {
  Deno.test(`chat response encode: ${name} transcript encodes and decodes back`, () => {
    const answer = decodeChatResponse(fixtureJson(name, "response.json"));
    const body = encodeChatResponse(answer, answerContext());
    assert.equal(body.id, "chatcmpl-1");
    assert.equal(body.object, "chat.completion");
    assert.equal(body.model, "client-model");
    assert.equal(body.created, answer.created);
    const { id: _id, model: _model, ...again } = decodeChatResponse(body);
    const { id: _i, model: _m, ...original } = answer;
    assert.deepEqual(again, original);
  });
}

const answer = (fields: Partial<IrResponse>): IrResponse => ({
  id: "up",
  model: "up-model",
  parts: [],
  finish: "stop",
  ...fields,
});

type Message = Record<string, unknown>;
const messageOf = (body: Record<string, unknown>) =>
  (body.choices as { message: Message; finish_reason: string }[])[0]!;

/** One answer per row and the message fields (and finish) its client body holds. */
const ROWS: [string, IrResponse, Message, string][] = [
  [
    "text only: content, a null refusal",
    answer({ parts: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }),
    { role: "assistant", content: "ab", refusal: null },
    "stop",
  ],
  [
    "a refusal: null content",
    answer({ parts: [{ type: "refusal", text: "No." }], finish: "content_filter" }),
    { role: "assistant", content: null, refusal: "No." },
    "content_filter",
  ],
  [
    "messages' pause_turn ends as stop; an empty answer has empty content",
    answer({ finish: "pause" }),
    { role: "assistant", content: "", refusal: null },
    "stop",
  ],
  [
    "tool calls said `stop` upstream are tool_calls here",
    answer({ parts: [{ type: "tool_call", id: "c", name: "f", arguments: '{"a":1}' }] }),
    {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
    },
    "tool_calls",
  ],
  [
    "reasoning without opaque state: reasoning_content only",
    answer({ parts: [{ type: "reasoning", text: "hmm" }, { type: "text", text: "x" }] }),
    { role: "assistant", content: "x", refusal: null, reasoning_content: "hmm" },
    "stop",
  ],
  [
    "opaque state of every kind in reasoning_details, tagged with its origin",
    answer({
      parts: [
        { type: "reasoning", text: "a", opaque: { kind: "anthropic_signature", value: "S" } },
        { type: "reasoning", text: "", opaque: { kind: "anthropic_redacted", value: "R" } },
        {
          type: "reasoning",
          text: "sum",
          itemId: "rs_1",
          opaque: { kind: "openai_encrypted", value: "E" },
        },
        { type: "reasoning", text: "plain" },
      ],
    }),
    {
      role: "assistant",
      content: "",
      refusal: null,
      reasoning_content: "asumplain",
      reasoning_details: [
        {
          type: "reasoning.text",
          text: "a",
          id: null,
          format: "anthropic-claude-v1",
          index: 0,
          signature: "S",
        },
        {
          type: "reasoning.encrypted",
          data: "R",
          id: null,
          format: "anthropic-claude-v1",
          index: 1,
        },
        {
          type: "reasoning.summary",
          summary: "sum",
          id: "rs_1",
          format: "openai-responses-v1",
          index: 2,
        },
        {
          type: "reasoning.encrypted",
          data: "E",
          id: "rs_1",
          format: "openai-responses-v1",
          index: 2,
        },
        { type: "reasoning.text", text: "plain", id: null, format: "unknown", index: 3 },
      ],
    },
    "stop",
  ],
];

for (const [name, ir, message, finish] of ROWS) {
  Deno.test(`chat response encode: ${name}`, () => {
    const body = encodeChatResponse(ir, answerContext());
    assert.deepEqual(messageOf(body).message, message);
    assert.equal(messageOf(body).finish_reason, finish);
    assert.equal(body.created, 1_754_006_400, "the clock when the upstream gave no time");
    assert.equal("usage" in body, false, "no usage when the upstream reported none");
  });
}

Deno.test("chat response encode: the opaque state decodes back from the client's history", () => {
  const parts = ROWS[5]![1].parts;
  const body = encodeChatResponse(answer({ parts }), answerContext());
  assert.deepEqual(
    decodeChatResponse(body).parts,
    parts.filter((part) => part.type === "reasoning"),
  );
});

Deno.test("chat response encode: a custom tool's call answers with its input text", () => {
  const request = irRequest({ tools: [{ kind: "custom", name: "apply_patch" }] });
  const body = encodeChatResponse(
    answer({
      parts: [
        { type: "tool_call", id: "c1", name: "apply_patch", arguments: '{"input":"*** Begin"}' },
        { type: "tool_call", id: "c2", name: "apply_patch", arguments: "not json" },
      ],
      finish: "tool_calls",
    }),
    answerContext({ request }),
  );
  assert.deepEqual(messageOf(body).message.tool_calls, [
    { id: "c1", type: "custom", custom: { name: "apply_patch", input: "*** Begin" } },
    { id: "c2", type: "custom", custom: { name: "apply_patch", input: "not json" } },
  ]);
});

Deno.test("chat response encode: usage in the chat convention, cache writes included", () => {
  const body = encodeChatResponse(
    answer({
      usage: {
        input_tokens: 100,
        output_tokens: 10,
        cached_tokens: 60,
        cache_write_tokens: 30,
        reasoning_tokens: 4,
      },
    }),
    answerContext(),
  );
  assert.deepEqual(body.usage, {
    prompt_tokens: 100,
    completion_tokens: 10,
    total_tokens: 110,
    prompt_tokens_details: { cached_tokens: 60, cache_write_tokens: 30 },
    completion_tokens_details: { reasoning_tokens: 4 },
  });
});
