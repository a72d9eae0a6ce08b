import assert from "node:assert/strict";
import type { IrRequest } from "../../translate/ir.ts";
import { decodeMessagesRequest } from "./request_decode.ts";
import { CASES, fixtureJson, irRequest } from "./test_support.ts";

const user = (text: string) => ({
  role: "user" as const,
  parts: [{ type: "text" as const, text }],
});
const WEATHER = {
  kind: "function" as const,
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "City name" } },
    required: ["city"],
  },
  strict: false,
};

/** What each recorded client request must decode to (fields not named are not compared). */
const EXPECTED: Record<string, Partial<IrRequest>> = {
  text: {
    system: [{ type: "text", text: "You are a terse assistant. Answer in one sentence." }],
    turns: [user("What is the capital of France?")],
    temperature: 0.2,
    maxOutputTokens: 512,
    stream: true,
  },
  multi_turn: {
    turns: [
      user("Name a primary color."),
      { role: "assistant", parts: [{ type: "text", text: "Red." }] },
      user("Another one?"),
    ],
  },
  image: {
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
        },
        {
          type: "image",
          source: {
            kind: "base64",
            mediaType: "image/png",
            data:
              "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
          },
        },
      ],
    }],
  },
  tool_result: {
    turns: [
      user("What's the weather in Paris right now?"),
      {
        role: "assistant",
        parts: [{
          type: "tool_call",
          id: "toolu_w0",
          name: "get_weather",
          arguments: '{"city":"Paris"}',
        }],
      },
      {
        role: "user",
        parts: [{
          type: "tool_result",
          callId: "toolu_w0",
          content: [{ type: "text", text: '{"temperature":18,"condition":"light rain"}' }],
        }],
      },
    ],
  },
  reasoning: {
    reasoning: { enabled: true, budgetTokens: 4000, effort: "low" },
    turns: [
      user("Is 221 prime?"),
      {
        role: "assistant",
        parts: [
          {
            type: "reasoning",
            text: "221 / 13 = 17.",
            opaque: { kind: "anthropic_signature", value: "EqQBCkEARLIERSIGNATURE" },
          },
          { type: "text", text: "No: 221 = 13 × 17." },
        ],
      },
      user("And 223?"),
    ],
  },
  length: { maxOutputTokens: 16 },
};

for (const name of CASES) {
  Deno.test(`messages request decode: ${name} transcript`, () => {
    const decoded = decodeMessagesRequest(fixtureJson(name, "request.json"));
    assert.equal(decoded.model, "claude-sonnet-4-5");
    assert.equal(decoded.stream, true);
    assert.deepEqual(decoded.dropped, []);
    for (const [key, value] of Object.entries(EXPECTED[name] ?? {})) {
      assert.deepEqual(decoded[key as keyof IrRequest], value, `${name}: ${key}`);
    }
    if (name === "tool_call" || name === "parallel_tool_calls") {
      assert.deepEqual(decoded.tools[0], WEATHER);
      assert.equal(decoded.tools.length, 2);
    }
  });
}

Deno.test("messages request decode: Claude Code's request decodes whole, nothing refused", () => {
  const body = JSON.parse(
    Deno.readTextFileSync(
      new URL("../../../tests/fixtures/agents/claude_code_request.json", import.meta.url),
    ),
  );
  const request = decodeMessagesRequest(body);
  assert.equal(request.maxOutputTokens, 32000);
  assert.equal(request.stream, true);
  assert.deepEqual(request.reasoning, { enabled: true, effort: "high" });
  assert.equal(request.system[1]?.cacheControl?.type, "ephemeral");
  assert.ok(request.turns.some((turn) => turn.role === "system"), "its system message is a turn");
  assert.ok(request.tools.every((tool) => tool.kind === "function" && !tool.strict));
  assert.match(request.user ?? "", /device_id/);
  assert.deepEqual(request.dropped, ["context_management", "thinking.display"]);
});

/** One mapping per row: client body fields (beside model and messages) and the IR they give. */
const ROWS: [string, Record<string, unknown>, Partial<IrRequest>][] = [
  [
    "tools: custom and typeless are functions, web search kept, other server tools dropped",
    {
      tools: [
        { name: "a", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } },
        {
          type: "custom",
          name: "b",
          description: "B",
          input_schema: { type: "object" },
          strict: true,
        },
        { type: "web_search_20250305", name: "web_search", max_uses: 3 },
        { type: "bash_20250124", name: "bash" },
        { type: "text_editor_20250728", name: "str_replace_based_edit_tool" },
        { type: "code_execution_20250825", name: "code_execution" },
      ],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
    },
    {
      tools: [
        {
          kind: "function",
          name: "a",
          parameters: { type: "object" },
          strict: false,
          cacheControl: { type: "ephemeral" },
        },
        {
          kind: "function",
          name: "b",
          description: "B",
          parameters: { type: "object" },
          strict: true,
        },
        {
          kind: "web_search",
          options: { type: "web_search_20250305", name: "web_search", max_uses: 3 },
        },
      ],
      toolChoice: { type: "required" },
      parallelToolCalls: false,
      dropped: [
        "tools[3] (bash_20250124)",
        "tools[4] (text_editor_20250728)",
        "tools[5] (code_execution_20250825)",
      ],
    },
  ],
  ["tool_choice tool", { tool_choice: { type: "tool", name: "f" } }, {
    toolChoice: { type: "tool", name: "f" },
  }],
  ["tool_choice none", { tool_choice: { type: "none" } }, { toolChoice: { type: "none" } }],
  [
    "tool_choice auto allowing parallel calls",
    { tool_choice: { type: "auto", disable_parallel_tool_use: false } },
    { toolChoice: { type: "auto" }, parallelToolCalls: true },
  ],
  [
    "sampling, stop sequences, user; service tier and container dropped",
    {
      max_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ["END", 3],
      metadata: { user_id: "u-1" },
      service_tier: "auto",
      container: "c",
      mcp_servers: [{ type: "url", url: "https://m", name: "m" }],
    },
    {
      maxOutputTokens: 100,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stop: ["END"],
      user: "u-1",
      dropped: ["service_tier", "container", "mcp_servers"],
    },
  ],
  ["thinking disabled", { thinking: { type: "disabled" } }, { reasoning: { enabled: false } }],
  [
    "thinking enabled: the budget and the effort it stands for",
    { thinking: { type: "enabled", budget_tokens: 16000 } },
    { reasoning: { enabled: true, budgetTokens: 16000, effort: "medium" } },
  ],
  [
    "adaptive thinking with an effort",
    { thinking: { type: "adaptive" }, output_config: { effort: "xhigh" } },
    { reasoning: { enabled: true, effort: "high" } },
  ],
  ["adaptive thinking alone", { thinking: { type: "adaptive" } }, {
    reasoning: { enabled: true },
  }],
  [
    "a JSON schema output format",
    { output_config: { format: { type: "json_schema", schema: { type: "object" } } } },
    {
      output: { type: "json_schema", name: "response", schema: { type: "object" }, strict: true },
    },
  ],
];

for (const [label, fields, expected] of ROWS) {
  Deno.test(`messages request decode: ${label}`, () => {
    const body = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] };
    const decoded = decodeMessagesRequest({ ...body, ...fields });
    const base = decodeMessagesRequest(body);
    const changed = Object.fromEntries(
      Object.entries(decoded).filter(([key, value]) =>
        JSON.stringify(value) !== JSON.stringify(base[key as keyof IrRequest])
      ),
    );
    assert.deepEqual(changed, expected);
  });
}

Deno.test("messages request decode: an empty request is the empty IR request", () => {
  const decoded = decodeMessagesRequest({ model: "m", messages: [] });
  assert.deepEqual(decoded, irRequest({ model: "m" }));
});
