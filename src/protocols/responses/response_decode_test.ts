import assert from "node:assert/strict";
import type { IrAssistantPart, IrFinish } from "../../translate/ir.ts";
import { decodeResponsesResponse } from "./response_decode.ts";
import { CASES, fixtureJson, hasFixture } from "./test_support.ts";

type Items = Record<string, string>[];
const outputOf = (name: string) => fixtureJson(name, "response.json").output as Items;
const text = (value: string): IrAssistantPart => ({ type: "text", text: value });
const call = (item: Record<string, string>): IrAssistantPart => ({
  type: "tool_call",
  id: item.call_id!,
  name: item.name!,
  arguments: item.arguments!,
  itemId: item.id!,
});

/** What each recorded whole answer holds: its parts, finish and usage counts. */
const EXPECTED: Record<string, () => [IrAssistantPart[], IrFinish, number[]]> = {
  text: () => [[text("The capital of France is Paris.")], "stop", [27, 8, 0]],
  multi_turn: () => [[text("Blue.")], "stop", [38, 3, 0]],
  image: () => [
    [text("1. Dice rendered with partial transparency.\n2. A single red pixel.")],
    "stop",
    [133, 17, 0],
  ],
  tool_call: () => [[call(outputOf("tool_call")[0]!)], "tool_calls", [92, 16, 0]],
  parallel_tool_calls: () => {
    const [weather, time] = outputOf("parallel_tool_calls");
    return [[call(weather!), call(time!)], "tool_calls", [101, 47, 0]];
  },
  tool_result: () => [[text("It is 18 °C with light rain in Paris.")], "stop", [131, 14, 0]],
  reasoning: () => {
    const [reasoning] = outputOf("reasoning");
    return [
      [
        {
          type: "reasoning",
          text: "**Checking 223 for primality**\n\n223 is not divisible by 2, 3, 5, 7, 11 or 13, " +
            "and 17² = 289 > 223, so no further divisors are needed.",
          opaque: { kind: "openai_encrypted", value: reasoning!.encrypted_content! },
          itemId: reasoning!.id!,
        },
        text("Yes, 223 is prime."),
      ],
      "stop",
      [96, 342, 0, 320],
    ];
  },
  length: () => [
    [text("The sea rolls in with silver light,\nIt hums beneath the")],
    "length",
    [15, 16, 0],
  ],
  content_filter: () => [[text("The armies met at dawn")], "content_filter", [14, 6, 0]],
  cached_usage:
    () => [[text("Refunds for order class 3 follow rule 3.")], "stop", [1187, 12, 1152]],
};

for (const name of CASES.filter((name) => hasFixture(name, "response.json"))) {
  Deno.test(`responses response decode: ${name} transcript`, () => {
    const body = fixtureJson(name, "response.json");
    const [parts, finish, [input, output, cached, reasoning]] = EXPECTED[name]!();
    const response = decodeResponsesResponse(body);
    assert.equal(response.id, body.id);
    assert.equal(response.model, body.model);
    assert.equal(response.created, body.created_at);
    assert.deepEqual(response.parts, parts);
    assert.equal(response.finish, finish);
    assert.deepEqual(response.usage, {
      input_tokens: input,
      output_tokens: output,
      cached_tokens: cached,
      cache_write_tokens: 0,
      ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
    });
  });
}

Deno.test("responses response decode: custom calls, refusals, raw reasoning, hosted items", () => {
  const response = decodeResponsesResponse({
    id: "resp_1",
    model: "gpt-oss-120b",
    status: "completed",
    output: [
      {
        id: "rs_1",
        type: "reasoning",
        summary: [],
        content: [{ type: "reasoning_text", text: "raw" }],
      },
      { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search" } },
      {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [
          { type: "output_text", text: "a", annotations: [] },
          { type: "refusal", refusal: "no" },
        ],
      },
      {
        id: "ctc_1",
        type: "custom_tool_call",
        call_id: "call_p",
        name: "apply_patch",
        input: 'say "hi"',
      },
    ],
  });
  assert.deepEqual(response.parts, [
    { type: "reasoning", text: "raw", itemId: "rs_1" },
    text("a"),
    { type: "refusal", text: "no" },
    {
      type: "tool_call",
      id: "call_p",
      name: "apply_patch",
      arguments: '{"input":"say \\"hi\\""}',
      itemId: "ctc_1",
    },
  ]);
  assert.equal(response.finish, "tool_calls");
  assert.equal(response.usage, undefined);
  assert.equal(response.created, undefined);
});

Deno.test("responses response decode: a gateway in front's wrapped state is unwrapped", () => {
  const response = decodeResponsesResponse({
    output: [{
      id: "rs_2",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "t" }],
      encrypted_content: "tollgate:anthropic_signature:EqQBsig",
    }],
  });
  assert.deepEqual(response.parts, [{
    type: "reasoning",
    text: "t",
    opaque: { kind: "anthropic_signature", value: "EqQBsig" },
    itemId: "rs_2",
  }]);
});

Deno.test("responses response decode: anything missing still decodes", () => {
  for (const body of [{}, null, "text", { output: [null, 1, { type: "message" }] }]) {
    const response = decodeResponsesResponse(body);
    assert.deepEqual(response.parts, []);
    assert.equal(response.finish, "stop");
  }
  assert.equal(
    decodeResponsesResponse({ status: "incomplete", incomplete_details: null }).finish,
    "length",
  );
});
