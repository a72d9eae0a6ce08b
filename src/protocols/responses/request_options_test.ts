import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrRequest } from "../../translate/ir.ts";
import { decodeResponsesRequest } from "./request_decode.ts";

const decode = (fields: Record<string, unknown>) =>
  decodeResponsesRequest({ model: "m", input: "hi", ...fields });
const fn = (name: string, extra: Record<string, unknown> = {}) => ({
  type: "function",
  name,
  parameters: null,
  ...extra,
});

Deno.test("responses request decode: function strictness defaults to true (absent or null)", () => {
  const tools = decode({
    tools: [
      fn("a"),
      fn("b", { strict: null }),
      fn("c", { strict: true }),
      fn("d", { strict: false }),
    ],
  }).tools;
  assert.deepEqual(tools.map((t) => t.kind === "function" && t.strict), [true, true, true, false]);
  // No parameters is a function that takes none.
  assert.deepEqual(tools[0], {
    kind: "function",
    name: "a",
    parameters: { type: "object", properties: {} },
    strict: true,
  });
});

Deno.test("responses request decode: web search in its GA, preview and dated forms", () => {
  const types = ["web_search", "web_search_preview", "web_search_2025_08_26", "file_search"];
  const request = decode({ tools: types.map((type) => ({ type })) });
  assert.deepEqual(request.tools.map((tool) => tool.kind), [
    "web_search",
    "web_search",
    "web_search",
  ]);
  assert.deepEqual(request.dropped, ["tools[3] (file_search)"]);
});

/** `tool_choice` values and the IR choice (and drops) each gives. */
const CHOICES: [string, unknown, Partial<IrRequest>][] = [
  ["none", "none", { toolChoice: { type: "none" } }],
  ["required", "required", { toolChoice: { type: "required" } }],
  ["a named function", { type: "function", name: "a" }, {
    toolChoice: { type: "tool", name: "a" },
  }],
  ["a named custom tool", { type: "custom", name: "p" }, {
    toolChoice: { type: "tool", name: "p" },
  }],
  [
    "a hosted tool",
    { type: "web_search_preview" },
    {
      toolChoice: undefined,
      dropped: ["tools[3] (namespace)", "tool_choice (web_search_preview)"],
    },
  ],
  [
    "a tool that was dropped",
    { type: "function", name: "ns" },
    { toolChoice: undefined, dropped: ["tools[3] (namespace)", "tool_choice (function)"] },
  ],
];

for (const [what, value, expected] of CHOICES) {
  Deno.test(`responses request decode: tool_choice ${what}`, () => {
    const request = decode({
      tools: [fn("a"), { type: "custom", name: "p" }, { type: "web_search" }, {
        type: "namespace",
        name: "ns",
        tools: [],
      }],
      tool_choice: value,
    });
    assert.deepEqual(request.toolChoice, expected.toolChoice);
    assert.deepEqual(request.dropped, expected.dropped ?? ["tools[3] (namespace)"]);
  });
}

Deno.test("responses request decode: allowed_tools narrows the tools under its mode", () => {
  const request = decode({
    tools: [fn("a"), fn("b"), { type: "web_search" }],
    tool_choice: {
      type: "allowed_tools",
      mode: "required",
      tools: [{ type: "function", name: "b" }, { type: "web_search" }],
    },
  });
  assert.deepEqual(request.tools.map((tool) => "name" in tool ? tool.name : tool.kind), [
    "b",
    "web_search",
  ]);
  assert.deepEqual(request.toolChoice, { type: "required" });
});

/** `reasoning` objects and the IR reasoning each means. */
const REASONING: [unknown, IrRequest["reasoning"]][] = [
  [{ effort: "none" }, { enabled: false }],
  [{ effort: "minimal" }, { enabled: true, effort: "minimal" }],
  [{ effort: "xhigh", summary: "detailed" }, {
    enabled: true,
    effort: "high",
    summary: "detailed",
  }],
  [{ effort: "max" }, { enabled: true, effort: "high" }],
  // Codex's form: the model's default effort, summaries on.
  [{ summary: "auto" }, { enabled: true, summary: "auto" }],
  [{ effort: "low", generate_summary: "concise" }, {
    enabled: true,
    effort: "low",
    summary: "concise",
  }],
  [null, undefined],
];

for (const [reasoning, expected] of REASONING) {
  Deno.test(`responses request decode: reasoning ${JSON.stringify(reasoning)}`, () => {
    assert.deepEqual(decode({ reasoning }).reasoning, expected);
  });
}

Deno.test("responses request decode: text.format (JSON schema, JSON mode) and verbosity", () => {
  const schema = { type: "object", properties: { a: { type: "string" } } };
  const request = decode({
    text: {
      format: { type: "json_schema", name: "answer", schema, strict: true, description: "d" },
      verbosity: "high",
    },
  });
  assert.deepEqual(request.output, {
    type: "json_schema",
    name: "answer",
    schema,
    strict: true,
    description: "d",
  });
  assert.deepEqual(request.dropped, ["text.verbosity"]);
  assert.deepEqual(decode({ text: { format: { type: "json_object" } } }).output, {
    type: "json_object",
  });
});

Deno.test("responses request decode: log probabilities come with their include only", () => {
  const asked = decode({
    include: ["message.output_text.logprobs", "reasoning.encrypted_content"],
    top_logprobs: 3,
  });
  assert.equal(asked.logprobs, true);
  assert.equal(asked.topLogprobs, 3);
  assert.deepEqual(asked.dropped, []);
  const alone = decode({ top_logprobs: 3, include: ["file_search_call.results"] });
  assert.equal(alone.logprobs, undefined);
  assert.equal(alone.topLogprobs, undefined);
  assert.deepEqual(alone.dropped, ["include (file_search_call.results)", "top_logprobs"]);
});

Deno.test("responses request decode: end user, previous response, store, metadata", () => {
  const request = decode({
    user: "legacy",
    safety_identifier: "hashed-user",
    previous_response_id: "resp_prev",
    store: true,
    metadata: { team: "a" },
    stream: true,
  });
  assert.equal(request.user, "hashed-user");
  assert.equal(request.previousResponseId, "resp_prev");
  assert.equal(request.store, true);
  assert.equal(request.stream, true);
  assert.deepEqual(request.dropped, ["metadata"]);
  assert.equal(decode({ user: "legacy" }).user, "legacy");
});

/** Fields that point at state only OpenAI holds: refused by name. */
const STORED: [string, Record<string, unknown>][] = [
  ["conversation", { conversation: "conv_1" }],
  ["prompt", { prompt: { id: "pmpt_1" } }],
  ["background", { background: true }],
];

for (const [param, fields] of STORED) {
  Deno.test(`responses request decode: ${param} is refused`, () => {
    assert.throws(() => decode(fields), (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.code, "convert_request_failed");
      assert.equal(error.param, param);
      return true;
    });
  });
}

Deno.test("responses request decode: background false and null fields are not notes", () => {
  const request = decode({ background: false, conversation: null, truncation: null });
  assert.deepEqual(request.dropped, []);
});
