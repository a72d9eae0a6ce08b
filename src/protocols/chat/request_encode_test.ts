import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrRequest, IrTurn } from "../../translate/ir.ts";
import { decodeChatRequest } from "./request_decode.ts";
import { encodeChatRequest } from "./request_encode.ts";
import { CASES, fixtureJson, irRequest, requestContext } from "./test_support.ts";

const withoutReasoning = (turns: IrTurn[]): IrTurn[] =>
  turns.map((turn) =>
    turn.role === "assistant"
      ? { ...turn, parts: turn.parts.filter((part) => part.type !== "reasoning") }
      : turn
  );

for (const name of CASES) {
  Deno.test(`chat request encode: ${name} transcript survives encode and decode`, () => {
    const decoded = decodeChatRequest(fixtureJson(name, "request.json"));
    const context = requestContext();
    const body = encodeChatRequest(decoded, context);
    assert.equal(body.model, "upstream-model");
    assert.deepEqual(body.stream_options, { include_usage: true });
    const again = decodeChatRequest(body);
    assert.deepEqual(again, {
      ...decoded,
      model: "upstream-model",
      turns: withoutReasoning(decoded.turns),
      dropped: [],
    });
    const hadReasoning = decoded.turns.some((turn) =>
      turn.role === "assistant" && turn.parts.some((part) => part.type === "reasoning")
    );
    assert.deepEqual(context.drops, hadReasoning ? ["reasoning"] : []);
  });
}

/** One mapping per row: IR fields and the upstream body fields they must produce. */
const ROWS: [string, Partial<IrRequest>, Record<string, unknown>, string[]?][] = [
  [
    "system text joins into one system message; system turns stay in place",
    {
      system: [{ type: "text", text: "a", cacheControl: { type: "ephemeral" } }, {
        type: "text",
        text: "b",
      }],
      turns: [
        { role: "user", parts: [{ type: "text", text: "hi" }] },
        { role: "system", parts: [{ type: "text", text: "c" }] },
      ],
    },
    {
      messages: [
        { role: "system", content: "a\n\nb" },
        { role: "user", content: "hi" },
        { role: "system", content: "c" },
      ],
    },
    ["cache_control"],
  ],
  [
    "tool results go first, one tool message each; images in results are dropped",
    {
      turns: [{
        role: "user",
        parts: [
          { type: "text", text: "and now?" },
          {
            type: "tool_result",
            callId: "a",
            isError: true,
            content: [{ type: "text", text: "x" }, {
              type: "image",
              source: { kind: "url", url: "https://i" },
            }],
          },
          { type: "tool_result", callId: "b", content: [] },
        ],
      }],
    },
    {
      messages: [
        { role: "tool", tool_call_id: "a", content: "x" },
        { role: "tool", tool_call_id: "b", content: "" },
        { role: "user", content: "and now?" },
      ],
    },
    ["tool_result image", "tool_result is_error"],
  ],
  [
    "images and documents as chat parts; a file-id image cannot go",
    {
      turns: [{
        role: "user",
        parts: [
          { type: "text", text: "look" },
          {
            type: "image",
            source: { kind: "base64", mediaType: "image/png", data: "AA==" },
            detail: "high",
          },
          { type: "image", source: { kind: "file", fileId: "file-1" } },
          {
            type: "document",
            source: { kind: "base64", mediaType: "application/pdf", data: "QQ==" },
          },
          { type: "document", source: { kind: "text", text: "plain" }, title: "T" },
          { type: "document", source: { kind: "file", fileId: "file-2" }, filename: "x.pdf" },
        ],
      }],
    },
    {
      messages: [{
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AA==", detail: "high" } },
          {
            type: "file",
            file: { filename: "document.pdf", file_data: "data:application/pdf;base64,QQ==" },
          },
          { type: "text", text: "T\n\nplain" },
          { type: "file", file: { file_id: "file-2" } },
        ],
      }],
    },
    ["image file source"],
  ],
  [
    "assistant turns: text and refusal as content, calls, reasoning dropped; empty turns skipped",
    {
      turns: [
        {
          role: "assistant",
          parts: [
            { type: "reasoning", text: "r", opaque: { kind: "anthropic_signature", value: "s" } },
            { type: "text", text: "I'll check." },
            { type: "tool_call", id: "c", name: "f", arguments: "{}" },
          ],
        },
        { role: "assistant", parts: [{ type: "tool_call", id: "d", name: "g", arguments: "{}" }] },
        { role: "assistant", parts: [{ type: "reasoning", text: "only thoughts" }] },
        { role: "assistant", parts: [{ type: "refusal", text: "No." }] },
      ],
    },
    {
      messages: [
        {
          role: "assistant",
          content: "I'll check.",
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "d", type: "function", function: { name: "g", arguments: "{}" } }],
        },
        { role: "assistant", content: "No." },
      ],
    },
    ["reasoning"],
  ],
  [
    "tools: strict only when true, a custom tool as a function of `input`, web search dropped",
    {
      tools: [
        {
          kind: "function",
          name: "f",
          parameters: { type: "object" },
          strict: false,
          cacheControl: { type: "ephemeral" },
        },
        {
          kind: "function",
          name: "g",
          description: "G",
          parameters: { type: "object" },
          strict: true,
        },
        {
          kind: "custom",
          name: "apply_patch",
          description: "Patch files.",
          format: { type: "grammar", syntax: "lark", definition: "start: /.+/" },
        },
        { kind: "web_search" },
      ],
      toolChoice: { type: "tool", name: "g" },
      parallelToolCalls: false,
    },
    {
      tools: [
        { type: "function", function: { name: "f", parameters: { type: "object" } } },
        {
          type: "function",
          function: { name: "g", description: "G", parameters: { type: "object" }, strict: true },
        },
        {
          type: "function",
          function: {
            name: "apply_patch",
            description: "Patch files.\n\nThe input must follow this lark grammar:\nstart: /.+/",
            parameters: {
              type: "object",
              properties: { input: { type: "string", description: "The tool's freeform input." } },
              required: ["input"],
              additionalProperties: false,
            },
          },
        },
      ],
      tool_choice: { type: "function", function: { name: "g" } },
      parallel_tool_calls: false,
    },
    ["cache_control", "tools: web_search"],
  ],
  [
    "no tools, no tool_choice (the API refuses one alone)",
    { toolChoice: { type: "none" }, parallelToolCalls: true },
    { tools: undefined, tool_choice: undefined, parallel_tool_calls: undefined },
  ],
  [
    "reasoning on: max_completion_tokens and the effort a budget stands for",
    { maxOutputTokens: 9000, reasoning: { enabled: true, budgetTokens: 8000, summary: "auto" } },
    { max_completion_tokens: 9000, max_tokens: undefined, reasoning_effort: "medium" },
    ["reasoning.summary"],
  ],
  [
    "reasoning off: max_tokens and no effort",
    { maxOutputTokens: 100, reasoning: { enabled: false } },
    { max_tokens: 100, reasoning_effort: undefined },
  ],
  [
    "sampling, stop, n, logprobs, user, JSON mode; top_k dropped",
    {
      temperature: 1,
      topP: 0.5,
      topK: 5,
      stop: ["a", "b"],
      n: 3,
      logprobs: true,
      topLogprobs: 2,
      user: "u",
      output: { type: "json_object" },
    },
    {
      temperature: 1,
      top_p: 0.5,
      stop: ["a", "b"],
      n: 3,
      logprobs: true,
      top_logprobs: 2,
      user: "u",
      response_format: { type: "json_object" },
    },
    ["top_k"],
  ],
  [
    "a JSON schema output; a non-stream request has no stream fields",
    {
      output: {
        type: "json_schema",
        name: "r",
        schema: { type: "object" },
        strict: false,
        description: "d",
      },
    },
    {
      response_format: {
        type: "json_schema",
        json_schema: { name: "r", schema: { type: "object" }, description: "d", strict: false },
      },
      stream: undefined,
      stream_options: undefined,
    },
  ],
];

for (const [name, fields, expected, drops = []] of ROWS) {
  Deno.test(`chat request encode: ${name}`, () => {
    const context = requestContext();
    const body = encodeChatRequest(irRequest(fields), context);
    for (const [key, value] of Object.entries(expected)) assert.deepEqual(body[key], value, key);
    assert.deepEqual(context.drops, drops);
  });
}

for (
  const [field, fields] of [
    ["previous_response_id", { previousResponseId: "resp_1" }],
    ["modalities", { audio: true }],
  ] as const
) {
  Deno.test(`chat request encode: refuses ${field}`, () => {
    assert.throws(
      () => encodeChatRequest(irRequest(fields), requestContext()),
      (error: unknown) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.code, "convert_request_failed");
        assert.equal(error.param, field);
        return true;
      },
    );
  });
}

Deno.test("chat request encode: prompt_cache_key only when the client sent one", () => {
  const request = irRequest({ turns: [{ role: "user", parts: [{ type: "text", text: "hi" }] }] });
  const named = { ...requestContext(), conversation: "Conv0123456789abcdefgh" };
  assert.equal(
    encodeChatRequest({ ...request, promptCacheKey: "k" }, named).prompt_cache_key,
    "k",
  );
  // Many chat-compatible servers refuse a field they do not know: none is made up.
  assert.equal("prompt_cache_key" in encodeChatRequest(request, named), false);
});
