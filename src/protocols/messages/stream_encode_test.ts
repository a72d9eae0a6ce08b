import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { GatewayError } from "../../errors.ts";
import { encodeSse, type SseEvent } from "../../translate/sse.ts";
import type { ResponseEncodeContext } from "../../translate/codec.ts";
import { upstreamStreamError } from "../../translate/errors.ts";
import type { IrEvent } from "../../translate/ir.ts";
import { createMessagesStreamEncoder } from "./stream_encode.ts";
import {
  answerContext,
  CASES,
  decodeAll,
  fixtureJson,
  fixtureStream,
  hasFixture,
  ODD,
  oddPart,
} from "./test_support.ts";
import { protocolOf } from "../index.ts";

type Payload = Record<string, unknown>;

/** The client events for IR events (error events through `error()`, as the relay does). */
function encodeAll(events: IrEvent[], context: ResponseEncodeContext = answerContext()) {
  const encoder = createMessagesStreamEncoder(context);
  const out: SseEvent[] = [];
  for (const event of events) {
    if (event.type === "error") {
      return [...out, ...encoder.error(upstreamStreamError(event.error, protocolOf("messages")))];
    }
    out.push(...encoder.encode(event));
  }
  return [...out, ...encoder.end()];
}

/**
 * The payloads of a client stream, checked against the grammar of "Streaming Messages"
 * as the strictest client reads it: event name = type; message_start first; blocks
 * numbered from 0, one open at a time, deltas of the open block's kind (a signature
 * after the thinking text); message_delta with every block closed; message_stop last.
 */
function checkGrammar(events: SseEvent[]): Payload[] {
  const payloads = events.map((event) => {
    const payload = JSON.parse(event.data) as Payload;
    assert.equal(event.event, payload.type, "the event name is the payload's type");
    return payload;
  });
  if (payloads.at(-1)?.type === "error") return payloads;
  assert.equal(payloads[0]?.type, "message_start");
  assert.equal(payloads.at(-1)?.type, "message_stop");
  assert.equal(payloads.at(-2)?.type, "message_delta");
  let next = 0;
  let open: { index: number; kind: string; signed: boolean } | undefined;
  const allowed: Record<string, string[]> = {
    text: ["text_delta"],
    thinking: ["thinking_delta", "signature_delta"],
    tool_use: ["input_json_delta"],
    redacted_thinking: [],
  };
  for (const payload of payloads.slice(1, -2)) {
    if (payload.type === "content_block_start") {
      assert.equal(open, undefined, "one block open at a time");
      assert.equal(payload.index, next++, "consecutive indexes from 0");
      open = { index: payload.index as number, kind: String(block(payload).type), signed: false };
    } else if (payload.type === "content_block_delta") {
      assert.equal(payload.index, open?.index, "a delta of the open block");
      const type = String(block(payload, "delta").type);
      assert.ok(allowed[open!.kind]?.includes(type), `${type} in a ${open!.kind} block`);
      if (type === "thinking_delta") assert.ok(!open!.signed, "thinking after its signature");
      if (type === "signature_delta") open!.signed = true;
    } else {
      assert.equal(payload.type, "content_block_stop");
      assert.equal(payload.index, open?.index, "the open block stops");
      open = undefined;
    }
  }
  assert.equal(open, undefined, "every block stopped before message_delta");
  return payloads;
}

function block(payload: Payload, field = "content_block"): Payload {
  return payload[field] as Payload;
}

/** The Anthropic SDK's final message for a client stream: the strictest reader there is. */
function sdkFinalMessage(events: SseEvent[]) {
  const body = events.map(encodeSse).join("");
  const fetch: typeof globalThis.fetch = () =>
    Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
  const sdk = new Anthropic({ apiKey: "k", fetch, maxRetries: 0 });
  return sdk.messages
    .stream({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] })
    .finalMessage();
}

for (const name of CASES.filter((name) => hasFixture(name, "response.json"))) {
  Deno.test(`messages stream encode: ${name} reaches the SDK as the upstream's whole answer`, async () => {
    const events = encodeAll(decodeAll(fixtureStream(name)));
    checkGrammar(events);
    const message = await sdkFinalMessage(events);
    const whole = fixtureJson(name, "response.json");
    const { id, type, role, model, content, stop_reason, stop_sequence } = message;
    assert.deepEqual(
      { id, type, role, model, content, stop_reason, stop_sequence, usage: { ...message.usage } },
      { ...whole, id: "msg_1", model: "client-model" },
    );
  });
}

for (const name of ["error_before_output", "error_after_output"]) {
  Deno.test(`messages stream encode: ${name} ends with the error event the SDK raises`, async () => {
    const events = encodeAll(decodeAll(fixtureStream(name)));
    const payloads = checkGrammar(events);
    assert.deepEqual(payloads.at(-1), {
      type: "error",
      error: {
        type: "overloaded_error",
        message: "The upstream is overloaded: Overloaded",
        code: "overloaded_error",
      },
      request_id: "req_test",
    });
    assert.equal(payloads.filter((payload) => payload.type === "error").length, 1);
    await assert.rejects(sdkFinalMessage(events));
  });
}

const usage = { input_tokens: 120, output_tokens: 30, cached_tokens: 100, cache_write_tokens: 0 };

Deno.test("messages stream encode: another provider's stream, event by event", () => {
  const events = encodeAll([
    { type: "start", id: "chatcmpl-1", model: "gpt" },
    { type: "part_start", index: 0, part: { type: "reasoning" } },
    { type: "reasoning_delta", index: 0, text: "hm" },
    { type: "reasoning_opaque", index: 0, opaque: { kind: "openai_encrypted", value: "gAAA" } },
    { type: "part_end", index: 0 },
    { type: "part_start", index: 1, part: { type: "text" } },
    { type: "text_delta", index: 1, text: "" },
    { type: "text_delta", index: 1, text: "Hi" },
    { type: "part_end", index: 1 },
    { type: "part_start", index: 2, part: { type: "tool_call", id: "call.1", name: "f" } },
    { type: "arguments_delta", index: 2, json: '{"a":' },
    { type: "arguments_delta", index: 2, json: "1}" },
    { type: "part_end", index: 2 },
    { type: "finish", reason: "tool_calls" },
    { type: "usage", usage },
  ], answerContext({ inputTokensHint: 99 }));
  const delta = (index: number, fields: Payload) => ({
    type: "content_block_delta",
    index,
    delta: fields,
  });
  assert.deepEqual(checkGrammar(events), [
    {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "client-model",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 99,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
          service_tier: "standard",
        },
      },
    },
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    },
    delta(0, { type: "thinking_delta", thinking: "hm" }),
    delta(0, { type: "signature_delta", signature: "tollgate:openai_encrypted:gAAA" }),
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    delta(1, { type: "text_delta", text: "Hi" }),
    { type: "content_block_stop", index: 1 },
    {
      type: "content_block_start",
      index: 2,
      content_block: { type: "tool_use", id: "call_1_2945fb5c", name: "f", input: {} },
    },
    delta(2, { type: "input_json_delta", partial_json: '{"a":' }),
    delta(2, { type: "input_json_delta", partial_json: "1}" }),
    { type: "content_block_stop", index: 2 },
    {
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: {
        input_tokens: 20,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 100,
        output_tokens: 30,
        service_tier: "standard",
      },
    },
    { type: "message_stop" },
  ]);
});

Deno.test("messages stream encode: message_start carries the upstream's own input usage", () => {
  const [first] = checkGrammar(encodeAll([{ type: "start", id: "x", model: "m", usage }]));
  const message = first?.message as Payload;
  assert.deepEqual(message.usage, {
    input_tokens: 20,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 100,
    output_tokens: 1,
    service_tier: "standard",
  });
});

Deno.test("messages stream encode: redacted state is a redacted_thinking block; empty reasoning a thinking block", () => {
  const payloads = checkGrammar(encodeAll([
    { type: "start", id: "x", model: "m" },
    { type: "part_start", index: 0, part: { type: "reasoning" } },
    { type: "reasoning_opaque", index: 0, opaque: { kind: "anthropic_redacted", value: "RED" } },
    { type: "reasoning_delta", index: 0, text: "cannot go in a redacted block" },
    { type: "part_end", index: 0 },
    { type: "part_start", index: 1, part: { type: "reasoning" } },
    { type: "part_end", index: 1 },
    { type: "part_start", index: 2, part: { type: "refusal" } },
    { type: "refusal_delta", index: 2, text: "No." },
    { type: "part_end", index: 2 },
    { type: "finish", reason: "stop", stopSequence: "END" },
  ]));
  assert.deepEqual(payloads.slice(1, -1), [
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "redacted_thinking", data: "RED" },
    },
    { type: "content_block_stop", index: 0 },
    {
      type: "content_block_start",
      index: 1,
      content_block: { type: "thinking", thinking: "", signature: "" },
    },
    { type: "content_block_stop", index: 1 },
    { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "No." } },
    { type: "content_block_stop", index: 2 },
    {
      type: "message_delta",
      delta: { stop_reason: "stop_sequence", stop_sequence: "END" },
      usage: { output_tokens: 0 },
    },
  ]);
});

Deno.test("messages stream encode: an upstream that ended without a word still ends validly", () => {
  const payloads = checkGrammar(encodeAll([]));
  assert.deepEqual(payloads.map((payload) => payload.type), [
    "message_start",
    "message_delta",
    "message_stop",
  ]);
  assert.deepEqual(payloads[1]?.delta, { stop_reason: "end_turn", stop_sequence: null });
});

Deno.test("messages stream encode: end() closes an open block; nothing follows end or error", () => {
  const encoder = createMessagesStreamEncoder(answerContext());
  encoder.encode({ type: "start", id: "x", model: "m" });
  encoder.encode({ type: "part_start", index: 0, part: { type: "text" } });
  const ending = encoder.end().map((event) => JSON.parse(event.data).type);
  assert.deepEqual(ending, ["content_block_stop", "message_delta", "message_stop"]);
  assert.deepEqual(encoder.end(), []);
  assert.deepEqual(encoder.error(new GatewayError(502, "upstream_error", "x")), []);

  const failing = createMessagesStreamEncoder(answerContext());
  failing.encode({ type: "start", id: "x", model: "m" });
  failing.encode({ type: "part_start", index: 0, part: { type: "text" } });
  const error = failing.error(new GatewayError(502, "upstream_error", "The upstream failed."));
  assert.deepEqual(error.map((event) => event.event), ["error"]);
  assert.equal(JSON.parse(error[0]!.data).error.type, "api_error");
  assert.deepEqual(failing.encode({ type: "text_delta", index: 0, text: "late" }), []);
  assert.deepEqual(failing.end(), []);
});

Deno.test("messages stream encode: block deltas are the JSON of their objects, odd text and all", () => {
  const events = encodeAll([
    { type: "start", id: "u", model: "m" },
    { type: "part_start", index: 0, part: { type: "reasoning" } },
    { type: "reasoning_delta", index: 0, text: ODD },
    { type: "reasoning_opaque", index: 0, opaque: { kind: "anthropic_signature", value: ODD } },
    { type: "part_end", index: 0 },
    ...oddPart(1, { type: "text" }),
    ...oddPart(2, { type: "tool_call", id: "toolu_1", name: "f" }),
    { type: "finish", reason: "tool_calls" },
  ]);
  const deltas = events.filter((event) => event.event === "content_block_delta");
  assert.deepEqual(deltas.map((event) => JSON.parse(event.data)), [
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: ODD } },
    { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: ODD } },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: ODD } },
    {
      type: "content_block_delta",
      index: 2,
      delta: { type: "input_json_delta", partial_json: `{"a":${JSON.stringify(ODD)}}` },
    },
  ]);
  for (const event of events) assert.equal(JSON.stringify(JSON.parse(event.data)), event.data);
});
