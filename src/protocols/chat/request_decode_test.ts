import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrRequest, IrTool } from "../../translate/ir.ts";
import { decodeChatRequest } from "./request_decode.ts";
import { fixtureJson } from "./test_support.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const WEATHER: IrTool = {
  kind: "function",
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: {
    type: "object",
    properties: {
      city: { type: "string", description: "City name" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
    },
    required: ["city"],
    additionalProperties: false,
  },
  strict: true,
};
const TIME: IrTool = {
  kind: "function",
  name: "get_time",
  description: "Local time in an IANA time zone.",
  parameters: {
    type: "object",
    properties: { timezone: { type: "string" } },
    required: ["timezone"],
  },
  strict: false,
};
const base = (model: string, fields: Partial<IrRequest>): IrRequest => ({
  model,
  stream: true,
  system: [],
  turns: [],
  tools: [],
  stop: [],
  dropped: [],
  ...fields,
});
const user = (text: string) => ({
  role: "user" as const,
  parts: [{ type: "text" as const, text }],
});

/** What the recorded client requests mean in IR terms. */
const FIXTURES: [string, IrRequest][] = [
  [
    "text",
    base("gpt-4.1-mini", {
      system: [{ type: "text", text: "You are a terse assistant. Answer in one sentence." }],
      turns: [user("What is the capital of France?")],
      maxOutputTokens: 256,
      temperature: 0.2,
    }),
  ],
  [
    "multi_turn",
    base("deepseek-chat", {
      system: [{ type: "text", text: "You are a helpful math tutor." }],
      turns: [
        user("What is 12 times 7?"),
        { role: "assistant", parts: [{ type: "text", text: "12 times 7 is 84." }] },
        user("And half of that?"),
      ],
    }),
  ],
  [
    "image",
    base("gpt-4.1-mini", {
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
          { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
        ],
      }],
      maxOutputTokens: 100,
    }),
  ],
  [
    "tool_call",
    base("gpt-4.1-mini", {
      turns: [user("What's the weather in Paris right now?")],
      tools: [WEATHER, TIME],
      toolChoice: { type: "auto" },
    }),
  ],
  [
    "parallel_tool_calls",
    base("gpt-4.1-mini", {
      turns: [user("What's the weather in Tokyo, and what time is it there?")],
      tools: [WEATHER, TIME],
      parallelToolCalls: true,
    }),
  ],
  [
    "tool_result",
    base("qwen3:8b", {
      turns: [
        user("What's the weather in Paris right now?"),
        {
          role: "assistant",
          parts: [{
            type: "tool_call",
            id: "call_Vx3kP9q2mB7nR4tL",
            name: "get_weather",
            arguments: '{"city":"Paris","unit":"celsius"}',
          }],
        },
        {
          role: "user",
          parts: [{
            type: "tool_result",
            callId: "call_Vx3kP9q2mB7nR4tL",
            content: [{ type: "text", text: '{"temperature":18,"condition":"light rain"}' }],
          }],
        },
      ],
      tools: [WEATHER, TIME],
    }),
  ],
  [
    "reasoning",
    base("anthropic/claude-sonnet-4", {
      turns: [
        user("Is 221 prime?"),
        {
          role: "assistant",
          parts: [
            {
              type: "reasoning",
              text: "Check small primes: 221 / 13 = 17.",
              opaque: {
                kind: "anthropic_signature",
                value: (fixtureJson("reasoning", "request.json") as {
                  messages: { reasoning_details?: { signature: string }[] }[];
                }).messages[1]!.reasoning_details![0]!.signature,
              },
            },
            { type: "text", text: "No: 221 = 13 × 17." },
          ],
        },
        user("And 223?"),
      ],
      maxOutputTokens: 8000,
      reasoning: { enabled: true, effort: "high" },
    }),
  ],
  [
    "length",
    base("gpt-4.1-mini", {
      turns: [user("Write a long poem about the sea.")],
      maxOutputTokens: 12,
    }),
  ],
  ["error_before_output", base("gpt-4.1-mini", { turns: [user("Hello?")] })],
];

for (const [name, expected] of FIXTURES) {
  Deno.test(`chat request decode: ${name} transcript`, () => {
    assert.deepEqual(decodeChatRequest(fixtureJson(name, "request.json")), expected);
  });
}

Deno.test("chat request decode: prompt_cache_key is kept for the target", () => {
  const request = decodeChatRequest(fixtureJson("cached_usage", "request.json"));
  assert.equal(request.promptCacheKey, "support-v1");
  assert.deepEqual(request.dropped, []);
});

const req = (fields: Record<string, unknown>) => ({
  model: "m",
  messages: [{ role: "user", content: "hi" }],
  ...fields,
});

/** One mapping per row: a client body and the IR fields it must produce. */
const FIELDS: [string, Record<string, unknown>, Partial<IrRequest>][] = [
  [
    "developer messages lead the prompt; later system messages are system turns",
    req({
      messages: [
        { role: "developer", content: [{ type: "text", text: "a" }] },
        { role: "system", content: "b" },
        { role: "user", content: "hi" },
        { role: "system", content: "c" },
      ],
    }),
    {
      system: [{ type: "text", text: "a" }, { type: "text", text: "b" }],
      turns: [user("hi"), { role: "system", parts: [{ type: "text", text: "c" }] }],
    },
  ],
  [
    "consecutive tool messages are one user turn; legacy function results find their call",
    req({
      messages: [
        {
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "a", type: "function", function: { name: "f", arguments: "{}" } },
            { id: "b", type: "function", function: { name: "g", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "a", content: "1" },
        { role: "tool", tool_call_id: "b", content: [{ type: "text", text: "2" }] },
        { role: "assistant", content: null, function_call: { name: "h", arguments: "{}" } },
        { role: "function", name: "h", content: "3" },
      ],
    }),
    {
      turns: [
        {
          role: "assistant",
          parts: [
            { type: "tool_call", id: "a", name: "f", arguments: "{}" },
            { type: "tool_call", id: "b", name: "g", arguments: "{}" },
          ],
        },
        {
          role: "user",
          parts: [
            { type: "tool_result", callId: "a", content: [{ type: "text", text: "1" }] },
            { type: "tool_result", callId: "b", content: [{ type: "text", text: "2" }] },
          ],
        },
        {
          role: "assistant",
          parts: [{ type: "tool_call", id: "call_3_h", name: "h", arguments: "{}" }],
        },
        {
          role: "user",
          parts: [{
            type: "tool_result",
            callId: "call_3_h",
            content: [{ type: "text", text: "3" }],
          }],
        },
      ],
    },
  ],
  [
    "an assistant refusal, DeepSeek reasoning_content and a custom tool call in history",
    req({
      messages: [{
        role: "assistant",
        reasoning_content: "think",
        content: [{ type: "text", text: "x" }, { type: "refusal", refusal: "no" }],
        tool_calls: [{ id: "c", type: "custom", custom: { name: "apply_patch", input: "p" } }],
      }],
    }),
    {
      turns: [{
        role: "assistant",
        parts: [
          { type: "reasoning", text: "think" },
          { type: "text", text: "x" },
          { type: "refusal", text: "no" },
          { type: "tool_call", id: "c", name: "apply_patch", arguments: '{"input":"p"}' },
        ],
      }],
    },
  ],
  [
    "files: a data URL, bare base64 named by its file name, a file id",
    req({
      messages: [{
        role: "user",
        content: [
          {
            type: "file",
            file: { filename: "a.pdf", file_data: "data:application/pdf;base64,QQ==" },
          },
          { type: "file", file: { filename: "b.txt", file_data: "Qg==" } },
          { type: "file", file: { file_id: "file-1" } },
        ],
      }],
    }),
    {
      turns: [{
        role: "user",
        parts: [
          {
            type: "document",
            source: { kind: "base64", mediaType: "application/pdf", data: "QQ==" },
            filename: "a.pdf",
          },
          {
            type: "document",
            source: { kind: "base64", mediaType: "text/plain", data: "Qg==" },
            filename: "b.txt",
          },
          { type: "document", source: { kind: "file", fileId: "file-1" } },
        ],
      }],
    },
  ],
  [
    "legacy functions and function_call are tools and a tool choice",
    req({ functions: [{ name: "f" }], function_call: { name: "f" } }),
    {
      tools: [{
        kind: "function",
        name: "f",
        parameters: { type: "object", properties: {} },
        strict: false,
      }],
      toolChoice: { type: "tool", name: "f" },
    },
  ],
  [
    "allowed_tools narrows the tools; unknown tool types are dropped; a custom tool",
    req({
      tools: [
        { type: "function", function: { name: "f", parameters: { type: "object" } } },
        { type: "function", function: { name: "g", parameters: { type: "object" } } },
        { type: "custom", custom: { name: "apply_patch", format: { type: "text" } } },
        { type: "mystery" },
      ],
      tool_choice: {
        type: "allowed_tools",
        allowed_tools: {
          mode: "required",
          tools: [
            { type: "function", function: { name: "g" } },
            { type: "custom", custom: { name: "apply_patch" } },
          ],
        },
      },
    }),
    {
      tools: [
        { kind: "function", name: "g", parameters: { type: "object" }, strict: false },
        { kind: "custom", name: "apply_patch" },
      ],
      toolChoice: { type: "required" },
      dropped: ["tools[3]"],
    },
  ],
  [
    "sampling, stop, n, logprobs, user, json schema; max_completion_tokens wins",
    req({
      temperature: 0,
      top_p: 0.9,
      top_k: 40,
      stop: "END",
      n: 2,
      logprobs: true,
      top_logprobs: 3,
      max_tokens: 10,
      max_completion_tokens: 20,
      user: "u-old",
      safety_identifier: "u-1",
      response_format: {
        type: "json_schema",
        json_schema: { name: "r", schema: { type: "object" }, strict: true },
      },
    }),
    {
      temperature: 0,
      topP: 0.9,
      topK: 40,
      stop: ["END"],
      n: 2,
      logprobs: true,
      topLogprobs: 3,
      maxOutputTokens: 20,
      user: "u-1",
      output: { type: "json_schema", name: "r", schema: { type: "object" }, strict: true },
    },
  ],
  [
    "fields with no IR equivalent are dropped by name; nulls are not fields",
    req({
      seed: 1,
      frequency_penalty: 0,
      presence_penalty: 0,
      logit_bias: { "1": 2 },
      store: true,
      metadata: { a: "b" },
      service_tier: "auto",
      prediction: { type: "content", content: "x" },
      web_search_options: {},
      verbosity: "low",
      audio: { voice: "alloy", format: "mp3" },
      stream_options: { include_usage: true },
      temperature: null,
      modalities: ["text"],
    }),
    {
      dropped: [
        "seed",
        "frequency_penalty",
        "presence_penalty",
        "logit_bias",
        "store",
        "metadata",
        "service_tier",
        "prediction",
        "web_search_options",
        "verbosity",
        "audio",
      ],
    },
  ],
  [
    "OpenRouter-style cache_control on content parts is kept",
    req({
      messages: [
        {
          role: "system",
          content: [{ type: "text", text: "long", cache_control: { type: "ephemeral" } }],
        },
        {
          role: "user",
          content: [{ type: "text", text: "q", cache_control: { type: "ephemeral", ttl: "1h" } }],
        },
      ],
    }),
    {
      system: [{ type: "text", text: "long", cacheControl: { type: "ephemeral" } }],
      turns: [{
        role: "user",
        parts: [{ type: "text", text: "q", cacheControl: { type: "ephemeral", ttl: "1h" } }],
      }],
    },
  ],
  [
    "a participant's name is dropped",
    req({ messages: [{ role: "user", content: "hi", name: "bob" }] }),
    { dropped: ["messages[].name"] },
  ],
  ["audio output is kept to be refused", req({ modalities: ["text", "audio"] }), { audio: true }],
  ["reasoning_effort none turns reasoning off", req({ reasoning_effort: "none" }), {
    reasoning: { enabled: false },
  }],
  ["reasoning_effort xhigh is high", req({ reasoning_effort: "xhigh" }), {
    reasoning: { enabled: true, effort: "high" },
  }],
  ["OpenRouter's reasoning object: a budget", req({ reasoning: { max_tokens: 2000 } }), {
    reasoning: { enabled: true, budgetTokens: 2000 },
  }],
];

for (const [name, body, expected] of FIELDS) {
  Deno.test(`chat request decode: ${name}`, () => {
    const decoded = decodeChatRequest(body);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(decoded[key as keyof IrRequest], value, key);
    }
  });
}

/** What a client sends that cannot be carried: the 400 names the field. */
const REFUSED: [string, unknown[], string][] = [
  [
    "audio input",
    [{
      role: "user",
      content: [{ type: "input_audio", input_audio: { data: "", format: "wav" } }],
    }],
    "messages[0].content[0]",
  ],
  [
    "an unknown user part",
    [{ role: "user", content: [{ type: "video" }] }],
    "messages[0].content[0]",
  ],
  ["an image part in a system message", [{
    role: "system",
    content: [{ type: "image_url", image_url: { url: "x" } }],
  }], "messages[0].content[0]"],
  ["an unknown role", [{ role: "critic", content: "x" }], "messages[0].role"],
  ["an earlier audio answer", [{ role: "assistant", audio: { id: "a" } }], "messages[0].audio"],
  [
    "a file with no data",
    [{ role: "user", content: [{ type: "file", file: {} }] }],
    "messages[0].content[0].file",
  ],
  [
    "an unknown tool call type",
    [{ role: "assistant", tool_calls: [{ type: "mcp" }] }],
    "messages[0].tool_calls[0]",
  ],
];

for (const [name, messages, param] of REFUSED) {
  Deno.test(`chat request decode: refuses ${name}`, () => {
    assert.throws(() => decodeChatRequest({ model: "m", messages }), (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.status, 400);
      assert.equal(error.code, "convert_request_failed");
      assert.equal(error.param, param);
      return true;
    });
  });
}
