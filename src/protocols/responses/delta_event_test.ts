import assert from "node:assert/strict";
import fc from "fast-check";
import type { SseEvent } from "../../translate/sse.ts";
import { STRING_CONTENT } from "../json_shape.ts";
import { DELTA_EVENT, DELTA_KINDS, readDeltaEvent } from "./delta_event.ts";
import {
  assertLeftToParse,
  decodeAll,
  namedEvent,
  sameAsParse,
  trickyText,
} from "./test_support.ts";

Deno.test("responses delta event: the API's delta events are read without a parse", () => {
  const read = (data: Record<string, unknown>) => readDeltaEvent(JSON.stringify(data));
  assert.deepEqual(
    read({
      type: "response.output_text.delta",
      sequence_number: 10,
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: 'say "hi"\n',
      logprobs: [],
      obfuscation: "GL6K",
    }),
    { type: "response.output_text.delta", itemId: "msg_1", delta: 'say "hi"\n' },
  );
  assert.deepEqual(
    read({
      type: "response.function_call_arguments.delta",
      sequence_number: 3,
      item_id: "fc_1",
      output_index: 1,
      delta: '{"ci',
    })?.delta,
    '{"ci',
  );
  // The fields a compatible server may leave out.
  assert.deepEqual(read({ type: "response.refusal.delta", item_id: "m", delta: "No" }), {
    type: "response.refusal.delta",
    itemId: "m",
    delta: "No",
  });
});

Deno.test("responses delta event: any other layout, or a doubt, is parsed", () => {
  const missed = [
    '{"type":"response.output_text.done","item_id":"m","delta":"a"}',
    '{"sequence_number":1,"type":"response.output_text.delta","item_id":"m","delta":"a"}',
    '{"type":"response.output_text.delta","delta":"a","item_id":"m"}',
    '{"type":"response.output_text.delta","item_id":"m","delta":"a","delta":"b"}',
    '{"type":"response.output_text.delta","item_id":"m","item_id":"n","delta":"a"}',
    '{"type":"response.output_text.delta","item_id":"m","delta":"a","type":"x"}',
    '{"type":"response.output_text.delta","item_id":"m","delta":"a","logprobs":[{}]}',
    '{"type":"response.output_text.delta","item_id":"m", "delta":"a"}',
    '{"type":"response.output_text.delta","item_id":"m","delta":"\\x"}',
    '{"type":"response.output_text.delta","n":-01,"item_id":"m","delta":"a"}',
  ];
  const open = [
    namedEvent({ type: "response.created", response: { id: "r", model: "m" } }),
    namedEvent({ type: "response.output_item.added", item: { id: "m", type: "message" } }),
  ];
  assertLeftToParse(readDeltaEvent, decodeAll, {
    open,
    event: "response.output_text.delta",
    missed,
  });
});

const text = trickyText('"item_id":"x"');
const itemId = fc.constantFrom("msg_1", "rs_1", "fc_1", "ctc_1", "");
const item = fc.constantFrom(
  { id: "msg_1", type: "message", content: [] },
  { id: "rs_1", type: "reasoning", summary: [] },
  { id: "fc_1", type: "function_call", call_id: "c", name: "f", arguments: "" },
  { id: "ctc_1", type: "custom_tool_call", call_id: "c", name: "p", input: "" },
);
const ev = (type: string, fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record({ type: fc.constant(`response.${type}`), ...fields });
const event = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      type: fc.constantFrom(...Object.keys(DELTA_KINDS)),
      sequence_number: fc.nat(),
      item_id: itemId,
      output_index: fc.constantFrom(0, 1),
      content_index: fc.constantFrom(0, 1),
      delta: text,
      logprobs: fc.constantFrom([], null),
      obfuscation: text,
    }, { requiredKeys: ["type", "item_id", "delta"] }),
  },
  ev("output_item.added", { item }),
  ev("output_item.done", { item }),
  ev("content_part.added", {
    item_id: itemId,
    content_index: fc.constantFrom(0, 1),
    part: fc.constantFrom({ type: "output_text", text: "" }, { type: "reasoning_text" }),
  }),
  ev("reasoning_summary_part.added", { item_id: itemId, summary_index: fc.constantFrom(0, 1) }),
  ev("output_text.done", { item_id: itemId, text }),
  ev("completed", { response: fc.constant({ id: "r", status: "completed" }) }),
);
const name = fc.constantFrom("own", "own", "none", "error", "response.failed");

Deno.test("responses delta event: a stream decodes to the same IR read without a parse as parsed", () => {
  const created = namedEvent({ type: "response.created", response: { id: "r", model: "m" } });
  fc.assert(
    fc.property(
      fc.boolean(),
      fc.array(fc.tuple(event, name), { maxLength: 8 }),
      (started, events) => {
        const sse = events.map(([data, how]): SseEvent =>
          how === "own"
            ? namedEvent(data)
            : how === "none"
            ? { data: JSON.stringify(data) }
            : { event: how, data: JSON.stringify(data) }
        );
        sameAsParse(started ? [created, ...sse] : sse);
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("responses delta event: a crafted event that fails late is refused", () => {
  const fields = (field: string) => field.repeat(30);
  const data = `{"type":"response.output_text.delta",${fields('"a":null,')}"item_id":"m",${
    fields('"b":[],')
  }"delta":"x","x":}`;
  assert.equal(readDeltaEvent(data), undefined);
});

Deno.test("responses delta event: the layout repeats nothing but a string's characters", () => {
  // A repeated group of fields is what lets a crafted event backtrack; string content repeats
  // runs of plain characters between escapes, one way only (json_shape.ts).
  const layout = DELTA_EVENT.source.replaceAll(STRING_CONTENT, "");
  assert.ok(DELTA_EVENT.source.includes(STRING_CONTENT));
  assert.doesNotMatch(layout, /\)[*+{]/, layout);
});
