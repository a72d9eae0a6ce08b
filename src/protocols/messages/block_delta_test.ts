import assert from "node:assert/strict";
import fc from "fast-check";
import type { SseEvent } from "../../translate/sse.ts";
import { readBlockDelta } from "./block_delta.ts";
import {
  assertLeftToParse,
  decodeAll,
  namedEvent,
  sameAsParse,
  trickyText,
} from "./test_support.ts";

Deno.test("messages block delta: the API's deltas are read without a parse", () => {
  const delta = (d: Record<string, unknown>) =>
    readBlockDelta(JSON.stringify({ type: "content_block_delta", index: 2, delta: d }));
  assert.deepEqual(delta({ type: "text_delta", text: 'say "hi"\n' }), {
    index: 2,
    type: "text_delta",
    value: 'say "hi"\n',
  });
  assert.deepEqual(delta({ type: "input_json_delta", partial_json: '{"a":' })?.value, '{"a":');
  assert.deepEqual(delta({ type: "thinking_delta", thinking: "hm" })?.value, "hm");
  assert.deepEqual(delta({ type: "signature_delta", signature: "EqQ=" })?.value, "EqQ=");
  assert.equal(
    readBlockDelta(
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"caf\\u00E9"}}',
    )
      ?.value,
    "café",
  );
});

Deno.test("messages block delta: any other layout, or a doubt, is parsed", () => {
  const missed = [
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"a"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","text":"a"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}',
    '{"type":"content_block_delta","index":0,"delta":{"text":"a","type":"text_delta"}}',
    '{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"a"}}',
    '{"type":"content_block_delta","index":00,"delta":{"type":"text_delta","text":"a"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\\x"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\u0001"}}',
    '{"type":"content_block_delta","index":1234567890,"delta":{"type":"text_delta","text":"a"}}',
  ];
  const open = [
    namedEvent({
      type: "message_start",
      message: { id: "m", model: "c", usage: { input_tokens: 1 } },
    }),
    namedEvent({
      type: "content_block_start",
      index: 0,
      content_block: { type: "text", text: "" },
    }),
  ];
  assertLeftToParse(readBlockDelta, decodeAll, { open, event: "content_block_delta", missed });
});

const text = trickyText('"usage":{"output_tokens":9}');
const block = fc.constantFrom(
  { type: "text", text: "" },
  { type: "thinking", thinking: "", signature: "" },
  { type: "tool_use", id: "toolu_1", name: "f", input: {} },
  { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
);
const deltaType = fc.constantFrom(
  "text_delta",
  "thinking_delta",
  "signature_delta",
  "input_json_delta",
);
const field = fc.constantFrom("text", "thinking", "signature", "partial_json");
const index = fc.constantFrom(0, 0, 0, 1);
const event = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant("content_block_delta"),
      index,
      delta: fc.tuple(deltaType, field, text).map(([type, key, value]) => ({ type, [key]: value })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant("content_block_delta"),
      index,
      delta: fc.tuple(deltaType, text).map(([type, value]) => ({
        type,
        [type.replace(/_delta$/, "").replace("input_json", "partial_json")]: value,
      })),
    }),
  },
  fc.record({ type: fc.constant("content_block_start"), index, content_block: block }),
  fc.record({ type: fc.constant("content_block_stop"), index }),
  fc.record({
    type: fc.constant("message_delta"),
    delta: fc.constant({ stop_reason: "end_turn" }),
    usage: fc.constant({ output_tokens: 3 }),
  }),
  fc.constant({ type: "ping" }),
);
const name = fc.constantFrom<"own" | "none" | "error">("own", "own", "none", "error");

Deno.test("messages block delta: a stream decodes to the same IR read without a parse as parsed", () => {
  const start = namedEvent({
    type: "message_start",
    message: { id: "m", model: "c", usage: { input_tokens: 1 } },
  });
  fc.assert(
    fc.property(
      fc.boolean(),
      fc.array(fc.tuple(event, name), { maxLength: 8 }),
      (started, events) => {
        const sse = events.map(([data, how]): SseEvent =>
          how === "own"
            ? namedEvent(data)
            : how === "error"
            ? { event: "error", data: JSON.stringify(data) }
            : { data: JSON.stringify(data) }
        );
        sameAsParse(started ? [start, ...sse] : sse);
      },
    ),
    { numRuns: 2000 },
  );
});
