import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrRequest } from "../../translate/ir.ts";
import { PLACEHOLDER_SIGNATURE } from "./contents_encode.ts";
import { encodeGeminiRequest } from "./request_encode.ts";
import { irRequest, requestContext } from "./test_support.ts";

const PNG = "iVBORw0KGgo=";
const WEATHER = {
  kind: "function" as const,
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  strict: true,
};

Deno.test("gemini request encode: a whole conversation", () => {
  const context = requestContext("gemini-2.5-pro");
  const body = encodeGeminiRequest(
    irRequest({
      stream: true,
      system: [{ type: "text", text: "Be brief.", cacheControl: { type: "ephemeral" } }],
      turns: [
        {
          role: "user",
          parts: [
            { type: "text", text: "Weather where this photo was taken?" },
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
            { type: "image", source: { kind: "url", url: "https://example.com/a.jpg?x=1" } },
          ],
        },
        { role: "system", parts: [{ type: "text", text: "Use Celsius." }] },
        {
          role: "assistant",
          parts: [
            {
              type: "reasoning",
              text: "Paris, by the tower.",
              opaque: { kind: "anthropic_signature", value: "s" },
            },
            { type: "text", text: "Checking." },
            {
              type: "tool_call",
              id: "toolu_1",
              name: "get_weather",
              arguments: '{"city":"Paris"}',
            },
          ],
        },
        {
          role: "user",
          parts: [
            { type: "text", text: "(and hurry)" },
            {
              type: "tool_result",
              callId: "toolu_1",
              content: [
                { type: "text", text: "18 C" },
                { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
              ],
            },
          ],
        },
      ],
      tools: [WEATHER, { kind: "web_search" }],
      toolChoice: { type: "auto" },
      maxOutputTokens: 1024,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stop: ["a", "b", "c", "d", "e", "f"],
      user: "u-1",
    }),
    context,
  );
  assert.deepEqual(body, {
    contents: [
      {
        role: "user",
        parts: [
          { text: "Weather where this photo was taken?" },
          { inlineData: { mimeType: "image/png", data: PNG } },
          { fileData: { mimeType: "image/jpeg", fileUri: "https://example.com/a.jpg?x=1" } },
        ],
      },
      {
        role: "model",
        parts: [
          { text: "Checking." },
          {
            functionCall: { id: "toolu_1", name: "get_weather", args: { city: "Paris" } },
            thoughtSignature: PLACEHOLDER_SIGNATURE,
          },
        ],
      },
      {
        role: "user",
        parts: [
          {
            functionResponse: { id: "toolu_1", name: "get_weather", response: { output: "18 C" } },
          },
          { text: "(and hurry)" },
          { inlineData: { mimeType: "image/png", data: PNG } },
        ],
      },
    ],
    systemInstruction: { parts: [{ text: "Be brief." }, { text: "Use Celsius." }] },
    tools: [
      {
        functionDeclarations: [{
          name: "get_weather",
          description: "Current weather for a city.",
          parametersJsonSchema: WEATHER.parameters,
        }],
      },
      { googleSearch: {} },
    ],
    toolConfig: { functionCallingConfig: { mode: "AUTO" } },
    generationConfig: {
      maxOutputTokens: 1024,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stopSequences: ["a", "b", "c", "d", "e"],
    },
  });
  assert.deepEqual(context.drops, ["reasoning", "cache_control", "strict", "stop", "user"]);
});

interface Case {
  name: string;
  request: Partial<IrRequest>;
  expect: Record<string, unknown>;
  drops?: string[];
}

const CASES: Case[] = [
  {
    name: "a forced tool",
    request: { tools: [WEATHER], toolChoice: { type: "tool", name: "get_weather" } },
    expect: {
      toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } },
    },
    drops: ["strict"],
  },
  {
    name: "required and none",
    request: { tools: [{ ...WEATHER, strict: false }], toolChoice: { type: "required" } },
    expect: { toolConfig: { functionCallingConfig: { mode: "ANY" } } },
  },
  {
    name: "a custom tool is a function of one string input, its grammar told",
    request: {
      tools: [{
        kind: "custom",
        name: "apply_patch",
        description: "Patch files.",
        format: { type: "grammar", syntax: "lark", definition: "start: /.+/" },
      }],
    },
    expect: {
      tools: [{
        functionDeclarations: [{
          name: "apply_patch",
          description: "Patch files.\n\nThe input must follow this lark grammar:\nstart: /.+/",
          parametersJsonSchema: {
            type: "object",
            properties: { input: { type: "string", description: "The tool's freeform input." } },
            required: ["input"],
          },
        }],
      }],
    },
  },
  {
    name: "reasoning with an effort: its budget, thoughts included",
    request: { reasoning: { enabled: true, effort: "high" } },
    expect: {
      generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 24_576 } },
    },
  },
  {
    name: "reasoning with a small budget: Gemini's least",
    request: { reasoning: { enabled: true, budgetTokens: 100 } },
    expect: {
      generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 512 } },
    },
  },
  {
    name: "reasoning on with no budget: dynamic",
    request: { reasoning: { enabled: true, summary: "auto" } },
    expect: { generationConfig: { thinkingConfig: { includeThoughts: true } } },
  },
  {
    name: "reasoning off",
    request: { reasoning: { enabled: false } },
    expect: { generationConfig: { thinkingConfig: { thinkingBudget: 0 } } },
  },
  {
    name: "structured output",
    request: {
      output: { type: "json_schema", name: "r", schema: { type: "object" }, strict: true },
    },
    expect: {
      generationConfig: {
        responseMimeType: "application/json",
        responseJsonSchema: { type: "object" },
      },
    },
  },
  {
    name: "JSON mode; parallel calls off and a cache key dropped",
    request: { output: { type: "json_object" }, parallelToolCalls: false, promptCacheKey: "k" },
    expect: { generationConfig: { responseMimeType: "application/json" } },
    drops: ["parallel_tool_calls", "prompt_cache_key"],
  },
];

for (const c of CASES) {
  Deno.test(`gemini request encode: ${c.name}`, () => {
    const context = requestContext();
    const body = encodeGeminiRequest(
      irRequest({ turns: [{ role: "user", parts: [{ type: "text", text: "hi" }] }], ...c.request }),
      context,
    );
    for (const [key, value] of Object.entries(c.expect)) assert.deepEqual(body[key], value, key);
    assert.deepEqual(context.drops, c.drops ?? []);
  });
}

Deno.test("gemini request encode: only the turn in progress gets placeholder signatures", () => {
  const call = (id: string) => ({ type: "tool_call" as const, id, name: "f", arguments: "{}" });
  const result = (callId: string) => ({
    type: "tool_result" as const,
    callId,
    content: [{ type: "text" as const, text: "ok" }],
  });
  const body = encodeGeminiRequest(
    irRequest({
      turns: [
        { role: "user", parts: [{ type: "text", text: "first" }] },
        { role: "assistant", parts: [call("a")] },
        { role: "user", parts: [result("a")] },
        { role: "assistant", parts: [{ type: "text", text: "done" }] },
        { role: "user", parts: [{ type: "text", text: "second" }] },
        { role: "assistant", parts: [call("b"), call("c")] },
        { role: "user", parts: [result("b"), result("c")] },
        { role: "assistant", parts: [call("d")] },
        { role: "user", parts: [result("d")] },
      ],
    }),
    requestContext(),
  );
  const signatures = (body.contents as { role: string; parts: Record<string, unknown>[] }[])
    .filter((content) => content.role === "model")
    .map((content) => content.parts.map((part) => part.thoughtSignature ?? null));
  assert.deepEqual(signatures, [
    [null],
    [null],
    [PLACEHOLDER_SIGNATURE, null],
    [PLACEHOLDER_SIGNATURE],
  ]);
});

Deno.test("gemini request encode: results name their call's function; error results", () => {
  const body = encodeGeminiRequest(
    irRequest({
      turns: [
        {
          role: "assistant",
          parts: [{ type: "tool_call", id: "x1", name: "lookup", arguments: "oops" }],
        },
        {
          role: "user",
          parts: [
            {
              type: "tool_result",
              callId: "x1",
              content: [{ type: "text", text: "boom" }],
              isError: true,
            },
            { type: "tool_result", callId: "unknown", content: [] },
          ],
        },
      ],
    }),
    requestContext(),
  );
  assert.deepEqual(body.contents, [
    {
      role: "model",
      parts: [{
        functionCall: { id: "x1", name: "lookup", args: {} },
        thoughtSignature: PLACEHOLDER_SIGNATURE,
      }],
    },
    {
      role: "user",
      parts: [
        { functionResponse: { id: "x1", name: "lookup", response: { error: "boom" } } },
        { functionResponse: { id: "unknown", name: "unknown", response: { output: "" } } },
      ],
    },
  ]);
});

const REFUSED: [string, Partial<IrRequest>, string][] = [
  ["n above 1", { n: 2 }, "n"],
  ["log probabilities", { logprobs: true }, "logprobs"],
  ["top log probabilities", { topLogprobs: 2 }, "top_logprobs"],
  ["a previous response", { previousResponseId: "resp_1" }, "previous_response_id"],
  ["audio output", { audio: true }, "modalities"],
];

for (const [name, fields, param] of REFUSED) {
  Deno.test(`gemini request encode refuses ${name}`, () => {
    assert.throws(
      () => encodeGeminiRequest(irRequest(fields), requestContext()),
      (error: unknown) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.code, "convert_request_failed");
        assert.equal(error.param, param);
        return true;
      },
    );
  });
}
