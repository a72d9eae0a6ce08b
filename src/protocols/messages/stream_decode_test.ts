import assert from "node:assert/strict";
import type { IrEvent } from "../../translate/ir.ts";
import { decodeMessagesResponse } from "./response_decode.ts";
import {
  CASES,
  decodeAll,
  fixtureJson,
  fixtureStream,
  foldEvents,
  hasFixture,
  sse,
} from "./test_support.ts";

for (const name of CASES.filter((name) => hasFixture(name, "response.json"))) {
  Deno.test(`messages stream decode: ${name} transcript streams what its whole answer holds`, () => {
    const events = decodeAll(fixtureStream(name));
    const folded = foldEvents(events);
    const whole = decodeMessagesResponse(fixtureJson(name, "response.json"));
    assert.equal(folded.error, undefined);
    assert.equal(folded.id, whole.id);
    assert.equal(folded.model, whole.model);
    assert.deepEqual(folded.parts, whole.parts);
    assert.equal(folded.finish, whole.finish);
    assert.deepEqual(folded.usage, whole.usage);
    // message_start's input usage rides on `start`, before any output.
    const start = events[0];
    assert.equal(start?.type === "start" && start.usage?.input_tokens, whole.usage?.input_tokens);
  });
}

Deno.test("messages stream decode: error_before_output is one error event and nothing else", () => {
  assert.deepEqual(decodeAll(fixtureStream("error_before_output")), [{
    type: "error",
    error: { status: 529, type: "overloaded_error", message: "Overloaded" },
  }]);
});

Deno.test("messages stream decode: error_after_output keeps the text and its usage, then the error", () => {
  const events = decodeAll(fixtureStream("error_after_output"));
  const folded = foldEvents(events);
  assert.deepEqual(folded.parts, [{ type: "text", text: "Once upon a " }]);
  assert.equal(folded.finish, undefined);
  assert.deepEqual(folded.error, { status: 529, type: "overloaded_error", message: "Overloaded" });
  assert.equal(events.at(-2)?.type, "usage", "what was produced is billed");
});

const start = (usage: Record<string, unknown> = { input_tokens: 5, output_tokens: 1 }) => ({
  type: "message_start",
  message: { id: "msg_1", model: "claude", content: [], usage },
});
const blockStart = (index: number, block: Record<string, unknown>) => ({
  type: "content_block_start",
  index,
  content_block: block,
});
const blockDelta = (index: number, delta: Record<string, unknown>) => ({
  type: "content_block_delta",
  index,
  delta,
});
const stop = (index: number) => ({ type: "content_block_stop", index });
const messageDelta = (stopReason: string | null, usage: Record<string, unknown>, seq?: string) => ({
  type: "message_delta",
  delta: { stop_reason: stopReason, stop_sequence: seq ?? null },
  usage,
});

/** Streams as real servers send them, and the answer each folds into. */
const STREAMS: [string, Record<string, unknown>[], Partial<ReturnType<typeof foldEvents>>][] = [
  [
    "server tool blocks are skipped and the parts renumbered; ping and unknown events ignored",
    [
      start(),
      { type: "ping" },
      blockStart(0, { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }),
      blockDelta(0, { type: "input_json_delta", partial_json: '{"query":"q"}' }),
      stop(0),
      blockStart(1, { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] }),
      stop(1),
      { type: "future_event", data: 1 },
      blockStart(2, { type: "text", text: "" }),
      blockDelta(2, { type: "citations_delta", citation: {} }),
      blockDelta(2, { type: "text_delta", text: "Found." }),
      stop(2),
      messageDelta("end_turn", { output_tokens: 9 }),
      { type: "message_stop" },
    ],
    { parts: [{ type: "text", text: "Found." }], finish: "stop" },
  ],
  [
    "a tool call without input deltas has the arguments {}, or the input it started with",
    [
      start(),
      blockStart(0, { type: "tool_use", id: "toolu_1", name: "f", input: {} }),
      blockDelta(0, { type: "input_json_delta", partial_json: "" }),
      stop(0),
      blockStart(1, { type: "tool_use", id: "toolu_2", name: "g", input: { a: 1 } }),
      stop(1),
      messageDelta("tool_use", { output_tokens: 9 }),
    ],
    {
      parts: [
        { type: "tool_call", id: "toolu_1", name: "f", arguments: "{}" },
        { type: "tool_call", id: "toolu_2", name: "g", arguments: '{"a":1}' },
      ],
      finish: "tool_calls",
    },
  ],
  [
    "redacted thinking; a stop sequence; message_delta restating input and cache fields",
    [
      start({ input_tokens: 5, cache_read_input_tokens: 10, output_tokens: 1 }),
      blockStart(0, { type: "redacted_thinking", data: "RED" }),
      stop(0),
      blockStart(1, { type: "text", text: "Hi" }),
      stop(1),
      messageDelta("stop_sequence", {
        input_tokens: 5,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: 10,
        output_tokens: 4,
      }, "END"),
    ],
    {
      parts: [
        { type: "reasoning", text: "", opaque: { kind: "anthropic_redacted", value: "RED" } },
        { type: "text", text: "Hi" },
      ],
      finish: "stop",
      stopSequence: "END",
      usage: { input_tokens: 15, output_tokens: 4, cached_tokens: 10, cache_write_tokens: 0 },
    },
  ],
  [
    "a server that skips message_start and block stops: the parts still open and close",
    [
      blockStart(0, { type: "thinking", thinking: "", signature: "" }),
      blockDelta(0, { type: "thinking_delta", thinking: "hm" }),
      blockDelta(0, { type: "signature_delta", signature: "SIG" }),
      blockStart(1, { type: "text", text: "" }),
      blockDelta(1, { type: "text_delta", text: "ok" }),
      messageDelta("max_tokens", { output_tokens: 3 }),
    ],
    {
      id: "",
      parts: [
        { type: "reasoning", text: "hm", opaque: { kind: "anthropic_signature", value: "SIG" } },
        { type: "text", text: "ok" },
      ],
      finish: "length",
      usage: { input_tokens: 0, output_tokens: 3, cached_tokens: 0, cache_write_tokens: 0 },
    },
  ],
  [
    "a stream cut mid-block: end() closes the part, no finish is made up",
    [
      start(),
      blockStart(0, { type: "text", text: "" }),
      blockDelta(0, { type: "text_delta", text: "a" }),
    ],
    { parts: [{ type: "text", text: "a" }], finish: undefined },
  ],
  [
    "deltas of another index or kind are ignored; blocks after the stop reason too",
    [
      start(),
      blockStart(0, { type: "text", text: "" }),
      blockDelta(3, { type: "text_delta", text: "stray" }),
      blockDelta(0, { type: "thinking_delta", thinking: "wrong kind" }),
      blockDelta(0, { type: "text_delta", text: "a" }),
      stop(0),
      messageDelta("end_turn", { output_tokens: 1 }),
      blockStart(1, { type: "text", text: "late" }),
      messageDelta("end_turn", { output_tokens: 2 }),
    ],
    {
      parts: [{ type: "text", text: "a" }],
      finish: "stop",
      usage: { input_tokens: 5, output_tokens: 2, cached_tokens: 0, cache_write_tokens: 0 },
    },
  ],
];

for (const [label, payloads, expected] of STREAMS) {
  Deno.test(`messages stream decode: ${label}`, () => {
    const folded = foldEvents(decodeAll(sse(...payloads)));
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(folded[key as keyof typeof folded], value, key);
    }
  });
}

Deno.test("messages stream decode: usage reports carry every count known so far", () => {
  const events = decodeAll(sse(
    start({ input_tokens: 7, cache_creation_input_tokens: 3, output_tokens: 1 }),
    messageDelta(null, { output_tokens: 4 }),
    messageDelta("end_turn", { output_tokens: 9 }),
  ));
  const usages = events.flatMap((event) => event.type === "usage" ? [event.usage] : []);
  assert.deepEqual(usages, [
    { input_tokens: 10, output_tokens: 4, cached_tokens: 0, cache_write_tokens: 3 },
    { input_tokens: 10, output_tokens: 9, cached_tokens: 0, cache_write_tokens: 3 },
  ]);
});

Deno.test("messages stream decode: nothing follows an error, not even at the end", () => {
  const decoder = decodeAll(sse(
    start(),
    blockStart(0, { type: "text", text: "" }),
    { type: "error", error: { type: "api_error", message: "Internal server error" } },
    blockDelta(0, { type: "text_delta", text: "more" }),
  ));
  const last: IrEvent | undefined = decoder.at(-1);
  assert.deepEqual(last, {
    type: "error",
    error: { status: 500, type: "api_error", message: "Internal server error" },
  });
  assert.ok(!decoder.some((event) => event.type === "part_end"));
});
