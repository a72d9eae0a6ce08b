import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrRequest } from "../../translate/ir.ts";
import { decodeMessagesRequest } from "./request_decode.ts";
import { encodeMessagesRequest } from "./request_encode.ts";
import { CASES, fixtureJson, irRequest, requestContext } from "./test_support.ts";

for (const name of CASES) {
  Deno.test(`messages request encode: ${name} transcript survives decode and encode`, () => {
    const client = fixtureJson(name, "request.json");
    const context = requestContext();
    const body = encodeMessagesRequest(decodeMessagesRequest(client), context);
    const contentBlocks = (messages: unknown) =>
      (messages as { role: string; content: unknown }[]).map((message) => ({
        ...message,
        content: typeof message.content === "string"
          ? [{ type: "text", text: message.content }]
          : message.content,
      }));
    assert.deepEqual(
      { ...body, messages: contentBlocks(body.messages) },
      { ...client, model: "upstream-model", messages: contentBlocks(client.messages) },
    );
    assert.deepEqual(context.drops, []);
  });
}

const call = { type: "tool_call" as const, id: "call.1", name: "f", arguments: "not json" };
const result = {
  type: "tool_result" as const,
  callId: "call.1",
  content: [{ type: "text" as const, text: "ok" }],
};
const signed = {
  type: "reasoning" as const,
  text: "t",
  opaque: { kind: "anthropic_signature" as const, value: "SIG" },
};

/** One mapping per row: IR fields, the upstream body fields they must produce, and drops. */
const ROWS: [string, Partial<IrRequest>, Record<string, unknown>, string[]?][] = [
  [
    "tools: functions (strict dropped), custom with its grammar, web search from responses",
    {
      tools: [
        {
          kind: "function",
          name: "f",
          parameters: { properties: {} },
          strict: true,
          cacheControl: { type: "ephemeral" },
        },
        {
          kind: "custom",
          name: "apply_patch",
          description: "Patch.",
          format: { type: "grammar", syntax: "lark", definition: "start: x" },
        },
        {
          kind: "web_search",
          options: {
            type: "web_search_preview",
            filters: { allowed_domains: ["a.com"] },
            user_location: { type: "approximate", city: "Paris" },
          },
        },
      ],
      toolChoice: { type: "tool", name: "f" },
      parallelToolCalls: false,
    },
    {
      messages: [],
      max_tokens: 4096,
      tools: [
        {
          name: "f",
          input_schema: { type: "object", properties: {} },
          cache_control: { type: "ephemeral" },
        },
        {
          name: "apply_patch",
          description: "Patch.\n\nThe input must follow this lark grammar:\nstart: x",
          input_schema: {
            type: "object",
            properties: { input: { type: "string", description: "The tool's freeform input." } },
            required: ["input"],
          },
        },
        {
          type: "web_search_20250305",
          name: "web_search",
          allowed_domains: ["a.com"],
          user_location: { type: "approximate", city: "Paris" },
        },
      ],
      tool_choice: { type: "tool", name: "f", disable_parallel_tool_use: true },
    },
    ["strict"],
  ],
  [
    "tool choice needs tools; required is any",
    { toolChoice: { type: "required" } },
    { messages: [], max_tokens: 4096 },
  ],
  [
    "sampling, stop sequences, user, stream; JSON output and summary dropped",
    {
      temperature: 0.3,
      topP: 0.8,
      topK: 5,
      stop: ["END"],
      user: "u",
      stream: true,
      output: { type: "json_object" },
      reasoning: { enabled: false, summary: "auto" },
    },
    {
      messages: [],
      max_tokens: 4096,
      temperature: 0.3,
      top_p: 0.8,
      top_k: 5,
      stop_sequences: ["END"],
      thinking: { type: "disabled" },
      metadata: { user_id: "u" },
      stream: true,
    },
    ["reasoning.summary", "response_format"],
  ],
  [
    "thinking on: its budget, and the sampling and forced tool it forbids dropped",
    {
      maxOutputTokens: 20000,
      reasoning: { enabled: true, effort: "medium" },
      temperature: 0.2,
      topP: 0.5,
      topK: 3,
      tools: [{ kind: "function", name: "f", parameters: {}, strict: false }],
      toolChoice: { type: "required" },
    },
    {
      messages: [],
      max_tokens: 20000,
      thinking: { type: "enabled", budget_tokens: 10000 },
      tools: [{ name: "f", input_schema: { type: "object" } }],
      tool_choice: { type: "auto" },
    },
    ["temperature", "top_k", "top_p", "tool_choice"],
  ],
  [
    "a budget clamps below max_tokens; temperature 1 stays",
    { maxOutputTokens: 8000, reasoning: { enabled: true, effort: "high" }, temperature: 1 },
    {
      messages: [],
      max_tokens: 8000,
      temperature: 1,
      thinking: { type: "enabled", budget_tokens: 7999 },
    },
  ],
  [
    "no room for the minimum budget: thinking dropped, sampling kept",
    { maxOutputTokens: 1024, reasoning: { enabled: true, budgetTokens: 2000 }, temperature: 0.5 },
    { messages: [], max_tokens: 1024, temperature: 0.5 },
    ["reasoning"],
  ],
  [
    "a tool loop without Anthropic thinking before its call: thinking dropped",
    {
      reasoning: { enabled: true, effort: "low" },
      turns: [
        { role: "user", parts: [{ type: "text", text: "q" }] },
        { role: "assistant", parts: [{ ...call, id: "t1", arguments: "{}" }] },
        { role: "user", parts: [{ ...result, callId: "t1" }] },
      ],
    },
    {
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
      ],
      max_tokens: 4096,
    },
    ["reasoning"],
  ],
  [
    "a tool loop with signed thinking before its call keeps thinking",
    {
      reasoning: { enabled: true, effort: "low" },
      turns: [
        { role: "user", parts: [{ type: "text", text: "q" }] },
        { role: "assistant", parts: [signed, { ...call, id: "t1", arguments: "{}" }] },
        { role: "user", parts: [{ ...result, callId: "t1" }] },
      ],
    },
    {
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: "SIG" },
            { type: "tool_use", id: "t1", name: "f", input: {} },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
      ],
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 4000 },
    },
  ],
];

for (const [label, fields, expected, drops = []] of ROWS) {
  Deno.test(`messages request encode: ${label}`, () => {
    const context = requestContext();
    const body = encodeMessagesRequest(irRequest(fields), context);
    assert.deepEqual(body, { model: "upstream-model", ...expected });
    assert.deepEqual(context.drops, drops);
  });
}

/** Requests a messages upstream cannot honour, refused naming the client's field. */
const REFUSED: [Partial<IrRequest>, string][] = [
  [{ n: 2 }, "n"],
  [{ logprobs: true, topLogprobs: 2 }, "logprobs"],
  [{ topLogprobs: 3 }, "top_logprobs"],
  [{ previousResponseId: "resp_1" }, "previous_response_id"],
  [{ audio: true }, "modalities"],
];

for (const [fields, param] of REFUSED) {
  Deno.test(`messages request encode: refuses ${param}`, () => {
    assert.throws(
      () => encodeMessagesRequest(irRequest(fields), requestContext()),
      (error: unknown) =>
        error instanceof GatewayError && error.status === 400 &&
        error.code === "convert_request_failed" && error.param === param,
    );
  });
}

Deno.test("messages request encode: n = 1 is one answer, as always", () => {
  const body = encodeMessagesRequest(irRequest({ n: 1 }), requestContext());
  assert.equal(body.n, undefined);
});
