import assert from "node:assert/strict";
import type { EntryProtocol } from "../config/schema.ts";
import type { SseEvent } from "../translate/sse.ts";
import { protocolOf } from "./index.ts";
import { encodeUsage as encodeChat, reportsUsage } from "./chat/usage.ts";
import { encodeUsage as encodeMessages } from "./messages/usage.ts";
import { encodeUsage as encodeResponses } from "./responses/usage.ts";
import type { Usage } from "../usage.ts";

const data = (value: unknown): SseEvent => ({ data: JSON.stringify(value) });
const named = (value: { type: string; [key: string]: unknown }): SseEvent => ({
  event: value.type,
  data: JSON.stringify(value),
});

const chunk = (extra: Record<string, unknown>) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "gpt-4o-mini",
  ...extra,
});

interface StreamCase {
  name: string;
  protocol: EntryProtocol;
  events: SseEvent[];
  usage: Usage | undefined;
}

const STREAMS: StreamCase[] = [
  {
    name: "chat with include_usage and cached tokens",
    protocol: "chat",
    events: [
      data(chunk({
        choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }],
        usage: null,
      })),
      data(chunk({
        choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: null }],
        usage: null,
      })),
      data(chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: null })),
      data(chunk({
        choices: [],
        usage: {
          prompt_tokens: 1200,
          completion_tokens: 5,
          total_tokens: 1205,
          prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      })),
      { data: "[DONE]" },
    ],
    usage: { input_tokens: 1200, output_tokens: 5, cached_tokens: 1024, cache_write_tokens: 0 },
  },
  {
    name: "chat without a usage chunk",
    protocol: "chat",
    events: [
      data(chunk({ choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }] })),
      { data: "[DONE]" },
    ],
    usage: undefined,
  },
  {
    name: "responses ending in response.completed",
    protocol: "responses",
    events: [
      named({ type: "response.created", response: { id: "resp_1", usage: null } }),
      named({ type: "response.output_text.delta", delta: "Hi" }),
      named(
        {
          type: "response.completed",
          sequence_number: 9,
          response: {
            id: "resp_1",
            status: "completed",
            usage: {
              input_tokens: 300,
              input_tokens_details: { cached_tokens: 256, cache_write_tokens: 20 },
              output_tokens: 12,
              output_tokens_details: { reasoning_tokens: 4 },
              total_tokens: 312,
            },
          },
        },
      ),
    ],
    usage: {
      input_tokens: 300,
      output_tokens: 12,
      cached_tokens: 256,
      cache_write_tokens: 20,
      reasoning_tokens: 4,
    },
  },
  {
    name: "responses ending in response.incomplete, without event names",
    protocol: "responses",
    events: [
      data({
        type: "response.incomplete",
        response: { usage: { input_tokens: 10, output_tokens: 16 } },
      }),
    ],
    usage: { input_tokens: 10, output_tokens: 16, cached_tokens: 0, cache_write_tokens: 0 },
  },
  {
    name: "messages with prompt caching",
    protocol: "messages",
    events: [
      named(
        {
          type: "message_start",
          message: {
            id: "msg_1",
            type: "message",
            role: "assistant",
            content: [],
            model: "claude-sonnet-4-5",
            stop_reason: null,
            stop_sequence: null,
            usage: {
              input_tokens: 12,
              cache_creation_input_tokens: 2000,
              cache_read_input_tokens: 5000,
              output_tokens: 1,
              service_tier: "standard",
            },
          },
        },
      ),
      named({ type: "content_block_start", index: 0 }),
      { event: "ping", data: '{"type": "ping"}' },
      named({ type: "content_block_delta", index: 0 }),
      named({ type: "content_block_stop", index: 0 }),
      named(
        {
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: 42 },
        },
      ),
      { event: "message_stop", data: '{"type":"message_stop"}' },
    ],
    usage: { input_tokens: 7012, output_tokens: 42, cached_tokens: 5000, cache_write_tokens: 2000 },
  },
  {
    name: "messages whose message_delta restates the input fields",
    protocol: "messages",
    events: [
      named(
        {
          type: "message_start",
          message: { usage: { input_tokens: 0, output_tokens: 0 } },
        },
      ),
      named(
        {
          type: "message_delta",
          usage: {
            input_tokens: 30,
            cache_creation_input_tokens: null,
            cache_read_input_tokens: 70,
            output_tokens: 8,
          },
        },
      ),
    ],
    usage: { input_tokens: 100, output_tokens: 8, cached_tokens: 70, cache_write_tokens: 0 },
  },
  {
    name: "messages stream that never reported usage",
    protocol: "messages",
    events: [{ event: "error", data: '{"type":"error","error":{"type":"overloaded_error"}}' }],
    usage: undefined,
  },
];

for (const c of STREAMS) {
  Deno.test(`usage tap (${c.protocol}): ${c.name}`, () => {
    const tap = protocolOf(c.protocol).createUsageTap();
    for (const event of c.events) tap.observe(event);
    assert.deepEqual(tap.usage(), c.usage);
  });
}

Deno.test("usage taps ignore garbage data", () => {
  for (const protocol of ["chat", "responses", "messages"] as const) {
    const tap = protocolOf(protocol).createUsageTap();
    tap.observe({ data: '{"usage": oops' });
    tap.observe({ data: "[DONE]" });
    assert.equal(tap.usage(), undefined);
  }
});

interface ResponseCase {
  protocol: EntryProtocol;
  json: unknown;
  usage: Usage | undefined;
}

const RESPONSES: ResponseCase[] = [
  {
    protocol: "chat",
    json: {
      object: "chat.completion",
      usage: {
        prompt_tokens: 19,
        completion_tokens: 10,
        total_tokens: 29,
        prompt_tokens_details: { cached_tokens: 0, cache_write_tokens: 3 },
      },
    },
    usage: { input_tokens: 19, output_tokens: 10, cached_tokens: 0, cache_write_tokens: 3 },
  },
  { protocol: "chat", json: { object: "chat.completion" }, usage: undefined },
  {
    protocol: "responses",
    json: { object: "response", usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 } },
    usage: { input_tokens: 5, output_tokens: 7, cached_tokens: 0, cache_write_tokens: 0 },
  },
  {
    protocol: "messages",
    json: {
      type: "message",
      usage: {
        input_tokens: 4,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: 100,
        output_tokens: 9,
      },
    },
    usage: { input_tokens: 104, output_tokens: 9, cached_tokens: 100, cache_write_tokens: 0 },
  },
  { protocol: "messages", json: "not an object", usage: undefined },
];

for (const c of RESPONSES) {
  Deno.test(`usageFromResponse (${c.protocol}) reads ${JSON.stringify(c.usage)}`, () => {
    assert.deepEqual(protocolOf(c.protocol).usageFromResponse(c.json), c.usage);
  });
}

Deno.test("encodeUsage round-trips through each protocol's reader", () => {
  const usage = {
    input_tokens: 1000,
    output_tokens: 50,
    cached_tokens: 600,
    cache_write_tokens: 100,
  };
  const cases = [
    ["chat", { usage: encodeChat(usage) }],
    ["responses", { usage: encodeResponses(usage) }],
    ["messages", { usage: encodeMessages(usage) }],
  ] as const;
  for (const [protocol, json] of cases) {
    assert.deepEqual(protocolOf(protocol).usageFromResponse(json), usage, protocol);
  }
  assert.equal(encodeMessages(usage).input_tokens, 300, "Anthropic counts cache tokens apart");
});

Deno.test("chat: only a chunk with a usage object reports usage", () => {
  assert.equal(reportsUsage('{"choices":[],"usage":{"prompt_tokens":1}}'), true);
  assert.equal(reportsUsage('{"choices":[], "usage" : { "prompt_tokens": 1 }}'), true);
  assert.equal(reportsUsage('{"choices":[{"delta":{"content":"x"}}],"usage":null}'), false);
  // Inside a string the quotes are escaped: not a usage field.
  assert.equal(reportsUsage('{"choices":[{"delta":{"content":"\\"usage\\": {"}}]}'), false);
});
