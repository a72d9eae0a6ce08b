import assert from "node:assert/strict";
import type { IrFinish, IrResponse } from "../../translate/ir.ts";
import { finishOfStop, stopOfFinish } from "./finish.ts";
import { decodeMessagesResponse } from "./response_decode.ts";
import { CASES, fixtureJson, hasFixture } from "./test_support.ts";
import type { Usage } from "../../usage.ts";

const usage = (input: number, output: number, cached = 0, written = 0): Usage => ({
  input_tokens: input + cached + written,
  output_tokens: output,
  cached_tokens: cached,
  cache_write_tokens: written,
});
const text = (value: string) => ({ type: "text" as const, text: value });

/** What each recorded upstream answer decodes to (id and model follow the case name). */
const EXPECTED: Record<string, Pick<IrResponse, "parts" | "finish" | "usage">> = {
  text: { parts: [text("Paris is the capital of France.")], finish: "stop", usage: usage(18, 7) },
  multi_turn: { parts: [text("Blue.")], finish: "stop", usage: usage(10, 2) },
  image: {
    parts: [text("A transparent PNG demo; a single red pixel.")],
    finish: "stop",
    usage: usage(11, 10),
  },
  tool_call: {
    parts: [{
      type: "tool_call",
      id: "call_w1",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    }],
    finish: "tool_calls",
    usage: usage(8, 7),
  },
  parallel_tool_calls: {
    parts: [
      { type: "tool_call", id: "call_w2", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "tool_call", id: "call_t2", name: "get_time", arguments: '{"zone":"Asia/Tokyo"}' },
    ],
    finish: "tool_calls",
    usage: usage(10, 17),
  },
  tool_result: {
    parts: [text("It is 18°C with light rain in Paris.")],
    finish: "stop",
    usage: usage(18, 11),
  },
  reasoning: {
    parts: [
      {
        type: "reasoning",
        text: "223 is not divisible by 2, 3, 5, 7, 11 or 13.",
        opaque: { kind: "anthropic_signature", value: "EqQBCkgIBhABGAISIGNATURE" },
      },
      text("Yes: 223 is prime."),
    ],
    finish: "stop",
    usage: usage(20, 30),
  },
  length: { parts: [text("Roses are red, violets")], finish: "length", usage: usage(5, 7) },
  content_filter: { parts: [text("")], finish: "content_filter", usage: usage(6, 0) },
  cached_usage: {
    parts: [text("Refunds follow rule 3.")],
    finish: "stop",
    usage: usage(0, 7, 512, 100),
  },
};

for (const name of CASES.filter((name) => hasFixture(name, "response.json"))) {
  Deno.test(`messages response decode: ${name} transcript`, () => {
    const decoded = decodeMessagesResponse(fixtureJson(name, "response.json"));
    assert.deepEqual(decoded, {
      id: `msg_fixture_${name}`,
      model: "claude-sonnet-4-5",
      ...EXPECTED[name],
    });
  });
}

Deno.test("messages response decode: redacted thinking, server tools skipped, a stop sequence", () => {
  const decoded = decodeMessagesResponse({
    id: "msg_1",
    model: "claude",
    content: [
      { type: "redacted_thinking", data: "RED" },
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
      { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
      { type: "text", text: "Found.", citations: [{ type: "web_search_result_location" }] },
      { type: "thinking", thinking: "no signature" },
      { type: "tool_use", id: "toolu_1", name: "f", input: null },
    ],
    stop_reason: "stop_sequence",
    stop_sequence: "END",
  });
  assert.deepEqual(decoded, {
    id: "msg_1",
    model: "claude",
    parts: [
      { type: "reasoning", text: "", opaque: { kind: "anthropic_redacted", value: "RED" } },
      text("Found."),
      { type: "reasoning", text: "no signature" },
      { type: "tool_call", id: "toolu_1", name: "f", arguments: "{}" },
    ],
    finish: "stop",
    stopSequence: "END",
  });
});

Deno.test("messages response decode: a body missing everything is an empty answer", () => {
  assert.deepEqual(decodeMessagesResponse(null), { id: "", model: "", parts: [], finish: "stop" });
});

/** Stop reasons (Anthropic `StopReason`) and the IR finish each stands for. */
const STOPS: [string, IrFinish][] = [
  ["end_turn", "stop"],
  ["stop_sequence", "stop"],
  ["max_tokens", "length"],
  ["model_context_window_exceeded", "length"],
  ["tool_use", "tool_calls"],
  ["refusal", "content_filter"],
  ["pause_turn", "pause"],
  ["something_new", "stop"],
];

Deno.test("messages response decode: every stop reason, and back", () => {
  for (const [stop, finish] of STOPS) assert.equal(finishOfStop(stop), finish, stop);
  const back = ["stop", "length", "tool_calls", "content_filter", "pause"] as const;
  assert.deepEqual(back.map((finish) => stopOfFinish(finish)), [
    "end_turn",
    "max_tokens",
    "tool_use",
    "refusal",
    "pause_turn",
  ]);
  assert.equal(stopOfFinish("stop", "END"), "stop_sequence");
});
