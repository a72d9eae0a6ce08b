import assert from "node:assert/strict";
import type { StreamPoint, WireProtocol } from "./behaviour.ts";
import { frameNames } from "./fake_client.ts";
import type { FakeReply, WireContext } from "./reply.ts";
import { malformedFrame, planStream, pointIndex } from "./stream_plan.ts";
import { WIRES } from "./wires.ts";

const context: WireContext = {
  model: "m",
  id: "id_1",
  created: 1,
  usage: { input: 3, output: 4, cached: 0, cacheWrite: 0, reasoning: 1 },
  request: { stream_options: { include_usage: true } },
};
const call = { id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' };

/** The frame names before the first content of each protocol, per reply. */
const PREAMBLES: [FakeReply, Record<WireProtocol, string[]>][] = [
  [{ text: "", reasoning: { text: "Think.", opaque: "sig" }, toolCalls: [call] }, {
    chat: ["role"],
    responses: [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
    ],
    messages: ["message_start", "content_block_start", "ping"],
  }],
  // A tool call's start names the tool: it is content.
  [{ text: "", toolCalls: [call] }, {
    chat: ["role"],
    responses: ["response.created", "response.in_progress"],
    messages: ["message_start"],
  }],
];

Deno.test("stream plan: reasoning and tool calls are content; the preamble is what comes before", () => {
  for (const [reply, preambles] of PREAMBLES) {
    for (const protocol of ["chat", "responses", "messages"] as const) {
      const frames = WIRES[protocol].stream(reply, context);
      const preamble = frames.slice(0, pointIndex(frames, "preamble"));
      assert.deepEqual(frameNames(preamble.map((frame) => frame.text)), preambles[protocol]);
      assert.ok(preamble.every((frame) => frame.kind === "preamble"), protocol);
    }
  }
});

Deno.test("stream plan: points count content frames; closing frames are chat's finish, usage, [DONE]", () => {
  const frames = WIRES.chat.stream({ text: "a b c" }, context);
  assert.deepEqual(frames.map((frame) => frame.kind), [
    "preamble",
    "content",
    "content",
    "content",
    "closing",
    "closing",
    "closing",
  ]);
  assert.deepEqual(
    [0, 1, 3, 9, "content"].map((point) => pointIndex(frames, point as StreamPoint)),
    [
      1,
      2,
      4,
      4,
      4,
    ],
  );
  // A malformed frame is the next content frame's data cut in half.
  const data = frames[2]!.text.slice("data: ".length, -2);
  assert.equal(malformedFrame(frames, 2), `data: ${data.slice(0, Math.ceil(data.length / 2))}\n\n`);
});

Deno.test("stream plan: the older gate and breakAfter count frames sent", () => {
  const frames = WIRES.messages.stream({ text: "a b" }, context);
  const gate = Promise.resolve();
  const plan = { name: "f", errorFrame: () => "", released: () => gate };
  const beats = planStream(frames, { gate, gateAfter: 1, breakAfter: 3 }, plan);
  assert.deepEqual(beats.map((beat) => Object.keys(beat)[0]), [
    "send",
    "wait",
    "send",
    "send",
    "abort",
  ]);
  // breakAfter past the end ends the stream cleanly.
  const whole = planStream(frames, { breakAfter: 99 }, plan);
  assert.ok(whole.every((beat) => "send" in beat));
});
