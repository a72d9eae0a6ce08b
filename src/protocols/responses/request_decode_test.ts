import assert from "node:assert/strict";
import type { IrRequest, IrTool, IrTurn } from "../../translate/ir.ts";
import { decodeResponsesRequest } from "./request_decode.ts";
import { fixtureJson, irRequest } from "./test_support.ts";

const WEATHER: IrTool = {
  kind: "function",
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "City name" } },
    required: ["city"],
    additionalProperties: false,
  },
  // Left out in the transcript: this API's default is strict.
  strict: true,
};
const TIME: IrTool = {
  kind: "function",
  name: "get_time",
  description: "Local time in an IANA time zone.",
  parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] },
  strict: false,
};
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const user = (text: string): IrTurn => ({ role: "user", parts: [{ type: "text", text }] });
const base = (fields: Partial<IrRequest>) =>
  irRequest({ model: "gpt-4.1-mini", stream: true, ...fields });
/** The `input` items of a recorded request. */
const inputOf = (name: string) =>
  fixtureJson(name, "request.json").input as Record<string, string>[];

/** What the recorded client requests mean in IR terms. */
const FIXTURES: [string, () => IrRequest][] = [
  ["text", () =>
    base({
      system: [{ type: "text", text: "You are a terse assistant. Answer in one sentence." }],
      turns: [user("What is the capital of France?")],
      temperature: 0.2,
      maxOutputTokens: 256,
    })],
  ["multi_turn", () =>
    base({
      system: [{ type: "text", text: "You are a helpful assistant. Keep answers short." }],
      turns: [
        user("Name a primary color."),
        { role: "assistant", parts: [{ type: "text", text: "Red." }] },
        user("Another one?"),
      ],
    })],
  ["image", () =>
    base({
      turns: [{
        role: "user",
        parts: [
          { type: "text", text: "What do these two images show? One line each." },
          {
            type: "image",
            source: {
              kind: "url",
              url:
                "https://upload.wikimedia.org/wikipedia/commons/4/47/PNG_transparency_demonstration_1.png",
            },
            detail: "low",
          },
          {
            type: "image",
            source: { kind: "base64", mediaType: "image/png", data: PNG },
            detail: "auto",
          },
        ],
      }],
      maxOutputTokens: 100,
    })],
  ["tool_call", () =>
    base({
      turns: [user("What's the weather in Paris right now?")],
      tools: [WEATHER, TIME],
      toolChoice: { type: "auto" },
    })],
  ["parallel_tool_calls", () =>
    base({
      turns: [user("What's the weather in Paris, and what time is it in Tokyo?")],
      tools: [WEATHER, TIME],
      parallelToolCalls: true,
    })],
  ["tool_result", () => {
    const [, call, output] = inputOf("tool_result");
    return base({
      turns: [
        user("What's the weather in Paris right now?"),
        {
          role: "assistant",
          parts: [{
            type: "tool_call",
            id: call!.call_id!,
            name: "get_weather",
            arguments: '{"city":"Paris"}',
            itemId: call!.id!,
          }],
        },
        {
          role: "user",
          parts: [{
            type: "tool_result",
            callId: call!.call_id!,
            content: [{ type: "text", text: output!.output! }],
          }],
        },
      ],
      tools: [WEATHER, TIME],
    });
  }],
  ["reasoning", () => {
    const [, reasoning] = inputOf("reasoning");
    return base({
      model: "gpt-5-mini",
      turns: [
        user("Is 221 prime?"),
        {
          role: "assistant",
          parts: [
            {
              type: "reasoning",
              text: "**Factoring 221**\n\n221 = 13 × 17.",
              opaque: { kind: "openai_encrypted", value: reasoning!.encrypted_content! },
              itemId: reasoning!.id!,
            },
            { type: "text", text: "No: 221 = 13 × 17." },
          ],
        },
        user("And 223?"),
      ],
      reasoning: { enabled: true, effort: "high", summary: "auto" },
      store: false,
      maxOutputTokens: 4096,
    });
  }],
  [
    "length",
    () => base({ turns: [user("Write a long poem about the sea.")], maxOutputTokens: 16 }),
  ],
  ["content_filter", () => base({ turns: [user("Describe the battle in graphic detail.")] })],
  ["cached_usage", () => {
    const instructions = String(fixtureJson("cached_usage", "request.json").instructions);
    return base({
      system: [{ type: "text", text: instructions }],
      turns: [user("What is the refund rule for order class 3?")],
      maxOutputTokens: 256,
      promptCacheKey: "example-corp-support",
    });
  }],
  ["error_before_output", () => base({ turns: [user("Tell me a story.")] })],
  ["error_after_output", () => base({ turns: [user("Tell me a story.")] })],
];

for (const [name, expected] of FIXTURES) {
  Deno.test(`responses request decode: ${name} transcript`, () => {
    assert.deepEqual(decodeResponsesRequest(fixtureJson(name, "request.json")), expected());
  });
}
