import assert from "node:assert/strict";
import type { SseEvent } from "../../translate/sse.ts";
import { decodeAll, foldEvents, sse } from "./test_support.ts";

type Fields = Record<string, unknown>;
const ev = (type: string, fields: Fields = {}) => ({ type: `response.${type}`, ...fields });
const added = (item: Fields, index = 0) => ev("output_item.added", { output_index: index, item });
const done = (item: Fields, index = 0) => ev("output_item.done", { output_index: index, item });
const created = ev("created", { response: { id: "r", model: "m", created_at: 7 } });
const completed = (fields: Fields = {}) =>
  ev("completed", { response: { id: "r", status: "completed", ...fields } });
const message = (...content: Fields[]) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  content,
});
const text = (value: string) => ({ type: "output_text", text: value, annotations: [] });
const at = { item_id: "msg_1", output_index: 0, content_index: 0 };
const call = (fields: Fields) => ({ id: "fc_1", type: "function_call", call_id: "c", ...fields });
const custom = (input: string) => ({
  id: "ctc_1",
  type: "custom_tool_call",
  call_id: "cp",
  name: "apply_patch",
  input,
});
const rs = (fields: Fields) => ({ id: "rs_1", type: "reasoning", summary: [], ...fields });
const inRs = (fields: Fields) => ({ item_id: "rs_1", output_index: 0, ...fields });
const summary = (...texts: string[]) => texts.map((t) => ({ type: "summary_text", text: t }));
const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cached_tokens: 0,
  cache_write_tokens: 0,
});
const PATCH = '*** "a"\nend';

/** Streams of compatible servers (and OpenAI's rarer shapes), and the answer each folds into. */
const DIALECTS: [string, SseEvent[], Partial<ReturnType<typeof foldEvents>>][] = [
  [
    "text deltas without content_part.added",
    sse(
      created,
      added(message()),
      ev("output_text.delta", { ...at, delta: "Hel", obfuscation: "x1" }),
      ev("output_text.delta", { ...at, delta: "lo" }),
      done(message(text("Hello"))),
      completed(),
    ),
    { parts: [{ type: "text", text: "Hello" }], finish: "stop" },
  ],
  [
    "text only in the .done events",
    sse(
      created,
      added(message()),
      ev("content_part.added", { ...at, part: text("") }),
      ev("output_text.done", { ...at, text: "Whole" }),
      ev("content_part.done", { ...at, part: text("Whole") }),
      done(message(text("Whole"))),
      completed(),
    ),
    { parts: [{ type: "text", text: "Whole" }] },
  ],
  [
    "items only in output_item.done, after a hosted tool's item",
    sse(
      created,
      added({ id: "ws_1", type: "web_search_call" }),
      ev("web_search_call.searching", { item_id: "ws_1", output_index: 0 }),
      done(rs({ summary: summary("s"), encrypted_content: "gA" }), 1),
      done(message(text("a"), { type: "refusal", refusal: "b" }), 2),
      done(call({ name: "f", arguments: "{}" }), 3),
      completed(),
    ),
    {
      parts: [
        {
          type: "reasoning",
          text: "s",
          itemId: "rs_1",
          opaque: { kind: "openai_encrypted", value: "gA" },
        },
        { type: "text", text: "a" },
        { type: "refusal", text: "b" },
        { type: "tool_call", id: "c", name: "f", arguments: "{}" },
      ],
      finish: "tool_calls",
    },
  ],
  [
    "the whole output only in response.completed",
    sse(
      created,
      completed({ output: [message(text("late"))], usage: { input_tokens: 3, output_tokens: 1 } }),
    ),
    { parts: [{ type: "text", text: "late" }], usage: usage(3, 1) },
  ],
  [
    "a custom tool call's input streamed, quotes and newlines escaped into its JSON",
    sse(
      created,
      added(custom("")),
      ev("custom_tool_call_input.delta", { item_id: "ctc_1", output_index: 0, delta: '*** "a"\n' }),
      ev("custom_tool_call_input.delta", { item_id: "ctc_1", output_index: 0, delta: "end" }),
      ev("custom_tool_call_input.done", { item_id: "ctc_1", output_index: 0, input: PATCH }),
      done(custom(PATCH)),
      completed(),
    ),
    {
      parts: [{
        type: "tool_call",
        id: "cp",
        name: "apply_patch",
        arguments: JSON.stringify({ input: PATCH }),
      }],
      finish: "tool_calls",
    },
  ],
  [
    "a custom tool call whose input comes only with the item",
    sse(created, added(custom("")), done(custom("x\ty")), completed()),
    {
      parts: [{
        type: "tool_call",
        id: "cp",
        name: "apply_patch",
        arguments: JSON.stringify({ input: "x\ty" }),
      }],
    },
  ],
  [
    "two summary parts, one only in its .done events; the state of the item's done event",
    sse(
      created,
      // `encrypted_content` "may be incomplete" while the item is in progress.
      added(rs({ encrypted_content: "gAAA-partial" })),
      ev("reasoning_summary_part.added", inRs({ summary_index: 0, part: summary("")[0] })),
      ev("reasoning_summary_text.delta", inRs({ summary_index: 0, delta: "one" })),
      ev("reasoning_summary_text.done", inRs({ summary_index: 0, text: "one" })),
      ev("reasoning_summary_part.added", inRs({ summary_index: 1, part: summary("")[0] })),
      ev("reasoning_summary_text.done", inRs({ summary_index: 1, text: "two" })),
      ev("reasoning_summary_part.done", inRs({ summary_index: 1, part: summary("two")[0] })),
      done(rs({ summary: summary("one", "two"), encrypted_content: "gAAA-whole" })),
      completed(),
    ),
    {
      parts: [{
        type: "reasoning",
        text: "one\n\ntwo",
        itemId: "rs_1",
        opaque: { kind: "openai_encrypted", value: "gAAA-whole" },
      }],
    },
  ],
  [
    "raw reasoning text (gpt-oss servers) in two content parts",
    sse(
      created,
      added(rs({})),
      ev("content_part.added", inRs({ content_index: 0, part: { type: "reasoning_text" } })),
      ev("reasoning_text.delta", inRs({ content_index: 0, delta: "a" })),
      ev("content_part.added", inRs({ content_index: 1, part: { type: "reasoning_text" } })),
      ev("reasoning_text.delta", inRs({ content_index: 1, delta: "b" })),
      ev("reasoning_text.done", inRs({ content_index: 1, text: "b" })),
      done(
        rs({
          content: [{ type: "reasoning_text", text: "a" }, { type: "reasoning_text", text: "b" }],
        }),
      ),
      completed(),
    ),
    { parts: [{ type: "reasoning", text: "a\n\nb", itemId: "rs_1" }] },
  ],
  [
    "summaries and raw reasoning text both: the summaries, as the whole answer shows them",
    sse(
      created,
      added(rs({})),
      ev("reasoning_summary_part.added", inRs({ summary_index: 0, part: summary("")[0] })),
      ev("reasoning_summary_text.delta", inRs({ summary_index: 0, delta: "short" })),
      ev("reasoning_text.delta", inRs({ content_index: 0, delta: "long raw" })),
      ev("reasoning_text.done", inRs({ content_index: 0, text: "long raw" })),
      done(rs({ summary: summary("short") })),
      completed(),
    ),
    { parts: [{ type: "reasoning", text: "short", itemId: "rs_1" }] },
  ],
  [
    "a refusal, an incomplete content-filtered answer, unknown events and [DONE]",
    [
      ...sse(
        created,
        ev("queued", { response: { id: "r" } }),
        added(message()),
        ev("content_part.added", { ...at, part: { type: "refusal", refusal: "" } }),
        ev("refusal.delta", { ...at, delta: "No." }),
        ev("refusal.done", { ...at, refusal: "No." }),
        ev("something_new", { foo: 1 }),
        { type: "keepalive" },
        ev("incomplete", {
          response: {
            id: "r",
            status: "incomplete",
            incomplete_details: { reason: "content_filter" },
          },
        }),
        completed(),
      ),
      { data: "[DONE]" },
    ],
    { parts: [{ type: "refusal", text: "No." }], finish: "content_filter" },
  ],
  [
    "a stream without response.created, cut before its end",
    sse(
      added(call({ name: "f", arguments: "" })),
      ev("function_call_arguments.delta", { item_id: "fc_1", output_index: 0, delta: '{"a"' }),
    ),
    {
      id: "",
      model: "",
      parts: [{ type: "tool_call", id: "c", name: "f", arguments: '{"a"' }],
      finish: undefined,
    },
  ],
  [
    "response.failed after output, with usage; nothing after it",
    sse(
      created,
      added(message()),
      ev("output_text.delta", { ...at, delta: "so" }),
      ev("failed", {
        response: {
          id: "r",
          status: "failed",
          error: { code: "rate_limit_exceeded", message: "slow" },
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      }),
      ev("output_text.delta", { ...at, delta: "after" }),
    ),
    {
      parts: [{ type: "text", text: "so" }],
      usage: usage(5, 1),
      error: { status: 429, type: "rate_limit_exceeded", message: "slow" },
    },
  ],
];

for (const [what, events, expected] of DIALECTS) {
  Deno.test(`responses stream decode: ${what}`, () => {
    const stream = foldEvents(decodeAll(events));
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(stream[key as keyof typeof stream], value, key);
    }
  });
}
