import assert from "node:assert/strict";
import type { IrResponse } from "../../translate/ir.ts";
import { decodeChatResponse } from "./response_decode.ts";
import { fixtureJson } from "./test_support.ts";
import type { Usage } from "../../usage.ts";

const usage = (input: number, output: number, extra: Partial<Usage> = {}): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cached_tokens: 0,
  cache_write_tokens: 0,
  ...extra,
});

const SIGNATURE = (fixtureJson("reasoning", "response.json") as {
  choices: { message: { reasoning_details: { signature: string }[] } }[];
}).choices[0]!.message.reasoning_details[0]!.signature;

/** What each recorded upstream answer means in IR terms. */
const FIXTURES: [string, Omit<IrResponse, "id" | "model" | "created">][] = [
  ["text", {
    parts: [{ type: "text", text: "The capital of France is Paris." }],
    finish: "stop",
    usage: usage(27, 8),
  }],
  ["multi_turn", {
    parts: [{ type: "text", text: "Half of 84 is 42." }],
    finish: "stop",
    usage: usage(38, 9),
  }],
  ["image", {
    parts: [{
      type: "text",
      text: "1. Two dice on a checkered background.\n2. A single red pixel.",
    }],
    finish: "stop",
    usage: usage(612, 17),
  }],
  ["tool_call", {
    parts: [{
      type: "tool_call",
      id: "call_Vx3kP9q2mB7nR4tL",
      name: "get_weather",
      arguments: '{"city":"Paris","unit":"celsius"}',
    }],
    finish: "tool_calls",
    usage: usage(142, 19),
  }],
  ["parallel_tool_calls", {
    parts: [
      {
        type: "tool_call",
        id: "call_A1b2C3d4E5f6G7h8",
        name: "get_weather",
        arguments: '{"city":"Tokyo"}',
      },
      {
        type: "tool_call",
        id: "call_Z9y8X7w6V5u4T3s2",
        name: "get_time",
        arguments: '{"timezone":"Asia/Tokyo"}',
      },
    ],
    finish: "tool_calls",
    usage: usage(150, 52),
  }],
  ["tool_result", {
    parts: [{ type: "text", text: "It's 18 °C with light rain in Paris." }],
    finish: "stop",
    usage: usage(211, 14),
  }],
  ["reasoning", {
    parts: [
      {
        type: "reasoning",
        text: "223 is not divisible by 2, 3, 5, 7, 11 or 13, and 15² > 223, so it is prime.",
        opaque: { kind: "anthropic_signature", value: SIGNATURE },
      },
      { type: "text", text: "Yes, 223 is prime." },
    ],
    finish: "stop",
    usage: usage(96, 61, { reasoning_tokens: 38 }),
  }],
  ["length", {
    parts: [{ type: "text", text: "The sea is wide, the sea is deep,\nits waves" }],
    finish: "length",
    usage: usage(15, 12),
  }],
  ["content_filter", {
    parts: [{ type: "text", text: "The armies met at dawn" }],
    finish: "content_filter",
    usage: usage(14, 6),
  }],
  ["cached_usage", {
    parts: [{ type: "text", text: "Yes: class 7 orders follow rule 7." }],
    finish: "stop",
    usage: usage(2006, 11, { cached_tokens: 1920, cache_write_tokens: 64 }),
  }],
];

for (const [name, expected] of FIXTURES) {
  Deno.test(`chat response decode: ${name} transcript`, () => {
    const json = fixtureJson(name, "response.json");
    const { id: _id, model, created: _created, ...decoded } = decodeChatResponse(json);
    assert.equal(model, json.model);
    assert.deepEqual(decoded, expected);
  });
}

/** Dialects of compatible servers, one body each. */
const DIALECTS: [string, unknown, Partial<IrResponse>][] = [
  [
    "DeepSeek reasoning_content before the answer",
    {
      choices: [{
        index: 0,
        message: { role: "assistant", content: "42", reasoning_content: "6 × 7." },
        finish_reason: "stop",
      }],
    },
    { parts: [{ type: "reasoning", text: "6 × 7." }, { type: "text", text: "42" }] },
  ],
  [
    "vLLM `reasoning` and the matched stop string",
    {
      choices: [{
        index: 0,
        message: { role: "assistant", content: "a", reasoning: "r" },
        finish_reason: "stop",
        stop_reason: "END",
      }],
    },
    {
      parts: [{ type: "reasoning", text: "r" }, { type: "text", text: "a" }],
      stopSequence: "END",
    },
  ],
  [
    "Mistral content array with a thinking part",
    {
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: [{ type: "text", text: "hmm" }] },
            { type: "text", text: "done" },
          ],
        },
        finish_reason: "stop",
      }],
    },
    { parts: [{ type: "reasoning", text: "hmm" }, { type: "text", text: "done" }] },
  ],
  [
    "OpenRouter OpenAI reasoning: summary and encrypted entries are one part",
    {
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: "x",
          reasoning: "sum",
          reasoning_details: [
            {
              type: "reasoning.summary",
              summary: "sum",
              id: "rs_1",
              format: "openai-responses-v1",
              index: 0,
            },
            {
              type: "reasoning.encrypted",
              data: "gAAA",
              id: "rs_1",
              format: "openai-responses-v1",
              index: 0,
            },
          ],
        },
        finish_reason: "stop",
      }],
    },
    {
      parts: [
        {
          type: "reasoning",
          text: "sum",
          itemId: "rs_1",
          opaque: { kind: "openai_encrypted", value: "gAAA" },
        },
        { type: "text", text: "x" },
      ],
    },
  ],
  [
    "Gemini reasoning entries keep their text and their signature",
    {
      choices: [{
        index: 0,
        message: {
          content: "y",
          reasoning_details: [
            { type: "reasoning.text", text: "t", format: "google-gemini-v1", index: 0 },
            { type: "reasoning.encrypted", data: "zz", format: "google-gemini-v1", index: 0 },
          ],
        },
        finish_reason: "stop",
      }],
    },
    {
      parts: [
        { type: "reasoning", text: "t", opaque: { kind: "gemini_signature", value: "zz" } },
        { type: "text", text: "y" },
      ],
    },
  ],
  [
    "a tool call answered with finish_reason stop, an id-less call, object arguments",
    {
      choices: [{
        index: 0,
        message: { content: "", tool_calls: [{ function: { name: "f", arguments: { a: 1 } } }] },
        finish_reason: "stop",
      }],
    },
    {
      parts: [{ type: "tool_call", id: "call_0", name: "f", arguments: '{"a":1}' }],
      finish: "tool_calls",
    },
  ],
  [
    "legacy function_call",
    {
      choices: [{
        index: 0,
        message: { content: null, function_call: { name: "f", arguments: "{}" } },
        finish_reason: "function_call",
      }],
    },
    {
      parts: [{ type: "tool_call", id: "call_0", name: "f", arguments: "{}" }],
      finish: "tool_calls",
    },
  ],
  [
    "a refusal",
    {
      choices: [{
        index: 0,
        message: { content: null, refusal: "I can't help with that." },
        finish_reason: "stop",
      }],
    },
    { parts: [{ type: "refusal", text: "I can't help with that." }], finish: "stop" },
  ],
  [
    "a custom tool call reads as `{input}` arguments",
    {
      choices: [{
        index: 0,
        message: {
          tool_calls: [{
            id: "c",
            type: "custom",
            custom: { name: "apply_patch", input: "*** Begin" },
          }],
        },
        finish_reason: "tool_calls",
      }],
    },
    {
      parts: [{
        type: "tool_call",
        id: "c",
        name: "apply_patch",
        arguments: '{"input":"*** Begin"}',
      }],
    },
  ],
  ["nothing at all", null, { id: "", model: "", parts: [], finish: "stop" }],
];

for (const [name, body, expected] of DIALECTS) {
  Deno.test(`chat response decode: ${name}`, () => {
    const decoded = decodeChatResponse(body);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(decoded[key as keyof IrResponse], value, key);
    }
  });
}
