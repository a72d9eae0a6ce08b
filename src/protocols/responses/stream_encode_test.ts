import assert from "node:assert/strict";
import OpenAI from "openai";
import { GatewayError } from "../../errors.ts";
import { encodeSse, type SseEvent } from "../../translate/sse.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { decodeResponsesRequest } from "./request_decode.ts";
import { createResponsesStreamEncoder } from "./stream_encode.ts";
import {
  answerContext,
  CASES,
  checkGrammar,
  decodeAll,
  encodeAll,
  fixtureJson,
  fixtureStream,
  foldEvents,
  hasFixture,
  irRequest,
  ODD,
  oddPart,
  payloads,
} from "./test_support.ts";

const ANSWERED = CASES.filter((name) => hasFixture(name, "response.json"));
const irOf = (name: string) => decodeAll(fixtureStream(name));

for (const name of ANSWERED) {
  Deno.test(`responses stream encode: ${name} in the event grammar, decoding back the same`, () => {
    const ir = irOf(name);
    const request = decodeResponsesRequest(fixtureJson(name, "request.json"));
    const events = encodeAll(ir, answerContext({ request }));
    const final = checkGrammar(events);
    assert.equal(final.model, "client-model");
    const { id: _a, model: _b, ...original } = foldEvents(ir);
    const { id, model, ...again } = foldEvents(decodeAll(events));
    assert.equal(id, final.id);
    assert.equal(model, "client-model");
    assert.deepEqual(again, original);
  });
}

/** The openai SDK's `ResponseStream` reading encoded events as if the API had sent them. */
function sdkStream(events: SseEvent[]) {
  const body = events.map(encodeSse).join("");
  const sdk = new OpenAI({
    apiKey: "sk-test",
    baseURL: "http://sdk.invalid/v1",
    maxRetries: 0,
    fetch: () =>
      Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } })),
  });
  return sdk.responses.stream({ model: "client-model", input: "hi" });
}

for (const name of ANSWERED) {
  Deno.test(`responses stream encode: the openai SDK accumulates ${name} (finalResponse)`, async () => {
    const ir = foldEvents(irOf(name));
    const response = await sdkStream(encodeAll(irOf(name))).finalResponse();
    const text = ir.parts.flatMap((part) => part.type === "text" ? [part.text] : []).join("");
    assert.equal(response.output_text, text);
    const kinds = ir.parts.map((part) => part.type === "tool_call" ? "function_call" : part.type);
    const types = response.output.flatMap((item) =>
      item.type === "message" ? item.content.map(() => "text") : [item.type]
    );
    assert.deepEqual(types, kinds);
    assert.equal(response.usage?.input_tokens, ir.usage?.input_tokens);
    assert.equal(response.usage?.input_tokens_details.cached_tokens, ir.usage?.cached_tokens);
    assert.equal(
      response.usage?.output_tokens_details.reasoning_tokens,
      ir.usage?.reasoning_tokens ?? 0,
    );
  });
}

const start: IrEvent = { type: "start", id: "up", model: "claude", created: 1_754_000_000 };
const part = (index: number, p: Extract<IrEvent, { type: "part_start" }>["part"]): IrEvent => ({
  type: "part_start",
  index,
  part: p,
});
const end = (index: number): IrEvent => ({ type: "part_end", index });

/** A messages upstream's tool loop turn, for a client that declared apply_patch custom. */
const TURN: IrEvent[] = [
  start,
  part(0, { type: "reasoning" }),
  { type: "reasoning_delta", index: 0, text: "plan" },
  { type: "reasoning_opaque", index: 0, opaque: { kind: "anthropic_signature", value: "EqQB" } },
  end(0),
  part(1, { type: "text" }),
  { type: "text_delta", index: 1, text: "Patching" },
  end(1),
  part(2, { type: "text" }),
  { type: "text_delta", index: 2, text: " now." },
  end(2),
  part(3, { type: "tool_call", id: "toolu_1", name: "apply_patch" }),
  { type: "arguments_delta", index: 3, json: '{"input":"*** Be' },
  { type: "arguments_delta", index: 3, json: 'gin\\n"}' },
  end(3),
  part(4, { type: "tool_call", id: "toolu_2", name: "get_time" }),
  { type: "arguments_delta", index: 4, json: '{"zone":' },
  { type: "arguments_delta", index: 4, json: '"UTC"}' },
  end(4),
  { type: "finish", reason: "tool_calls" },
  // Chat upstreams report usage after the finish.
  {
    type: "usage",
    usage: { input_tokens: 9, output_tokens: 4, cached_tokens: 0, cache_write_tokens: 0 },
  },
];
const CUSTOM = answerContext({
  request: irRequest({ tools: [{ kind: "custom", name: "apply_patch" }] }),
});

Deno.test("responses stream encode: a tool loop turn, custom tool input and wrapped state", async () => {
  const events = encodeAll(TURN, CUSTOM);
  const final = checkGrammar(events);
  const types = payloads(events).map((p) => p.type);
  assert.ok(types.includes("response.custom_tool_call_input.delta"));
  assert.equal(types.filter((t) => t === "response.function_call_arguments.delta").length, 2);
  assert.deepEqual(final.output, [
    {
      id: "rs_2",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "plan" }],
      encrypted_content: "tollgate:anthropic_signature:EqQB",
    },
    {
      id: "msg_3",
      type: "message",
      status: "completed",
      role: "assistant",
      // Text parts in a row share one message item.
      content: [
        { type: "output_text", annotations: [], logprobs: [], text: "Patching" },
        { type: "output_text", annotations: [], logprobs: [], text: " now." },
      ],
    },
    {
      id: "ctc_4",
      type: "custom_tool_call",
      status: "completed",
      call_id: "toolu_1",
      name: "apply_patch",
      input: "*** Begin\n",
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
  assert.equal(final.created_at, 1_754_000_000);
  assert.equal((final.usage as Record<string, number>).total_tokens, 13);
  const response = await sdkStream(events).finalResponse();
  assert.deepEqual(response.output.map((item) => item.type), [
    "reasoning",
    "message",
    "custom_tool_call",
    "function_call",
  ]);
});

Deno.test("responses stream encode: a stream that ends with nothing still completes", () => {
  const events = encodeAll([]);
  const final = checkGrammar(events);
  assert.equal(events.length, 3);
  assert.deepEqual(final.output, []);
  assert.equal(final.status, "completed");
  assert.equal(final.usage, null);
});

Deno.test("responses stream encode: a cut stream closes its open item; length is incomplete", () => {
  const cut = encodeAll([start, part(0, { type: "text" }), {
    type: "text_delta",
    index: 0,
    text: "a",
  }]);
  assert.equal(checkGrammar(cut).status, "completed");
  const length = checkGrammar(
    encodeAll([...TURN.slice(0, 5), { type: "finish", reason: "length" }]),
  );
  assert.equal(length.status, "incomplete");
  assert.deepEqual(length.incomplete_details, { reason: "max_output_tokens" });
});

Deno.test("responses stream encode: an error is the protocol's error event, numbered, then nothing", () => {
  const encoder = createResponsesStreamEncoder(answerContext());
  const opening = [...encoder.encode(start), ...encoder.encode(part(0, { type: "text" }))];
  const events = encoder.error(new GatewayError(502, "upstream_error", "The upstream failed."));
  assert.deepEqual(events.map((event) => event.event), ["error"]);
  assert.deepEqual(JSON.parse(events[0]!.data), {
    type: "error",
    sequence_number: opening.length,
    code: "upstream_error",
    message: "The upstream failed.",
    param: null,
    request_id: "req_test",
  });
  assert.deepEqual(encoder.encode(end(0)), []);
  assert.deepEqual(encoder.end(), []);
  assert.deepEqual(encoder.error(new GatewayError(502, "upstream_error", "again")), []);
});

Deno.test("responses stream encode: the SDK raises the error event", async () => {
  const encoder = createResponsesStreamEncoder(answerContext());
  const events = [
    ...encoder.encode(start),
    ...encoder.error(new GatewayError(429, "rate_limit_exceeded", "slow down")),
  ];
  await assert.rejects(() => sdkStream(events).finalResponse(), /slow down/);
});

Deno.test("responses stream encode: delta events are the JSON of their objects, odd text and all", () => {
  const events = encodeAll([
    { type: "start", id: "u", model: "m" },
    ...oddPart(0, { type: "reasoning", itemId: 'rs_"1"' }),
    ...oddPart(1, { type: "text" }),
    ...oddPart(2, { type: "refusal" }),
    ...oddPart(3, { type: "tool_call", id: "c", name: "f" }),
    { type: "finish", reason: "tool_calls" },
  ]);
  const deltas = events.filter((event) => event.event?.endsWith(".delta"));
  assert.deepEqual(deltas.map((event) => JSON.parse(event.data)), [
    {
      type: "response.reasoning_summary_text.delta",
      sequence_number: 4,
      item_id: 'rs_"1"',
      output_index: 0,
      summary_index: 0,
      delta: ODD,
    },
    {
      type: "response.output_text.delta",
      sequence_number: 10,
      item_id: "msg_2",
      output_index: 1,
      content_index: 0,
      delta: ODD,
      logprobs: [],
    },
    {
      type: "response.refusal.delta",
      sequence_number: 14,
      item_id: "msg_2",
      output_index: 1,
      content_index: 1,
      delta: ODD,
    },
    {
      type: "response.function_call_arguments.delta",
      sequence_number: 19,
      item_id: "fc_3",
      output_index: 2,
      delta: `{"a":${JSON.stringify(ODD)}}`,
    },
  ]);
  for (const event of events) assert.equal(JSON.stringify(JSON.parse(event.data)), event.data);
});
