import assert from "node:assert/strict";
import { GatewayError } from "../../errors.ts";
import type { IrRequest, IrTurn } from "../../translate/ir.ts";
import { decodeResponsesRequest } from "./request_decode.ts";
import { encodeResponsesRequest } from "./request_encode.ts";
import { CASES, fixtureJson, irRequest, requestContext } from "./test_support.ts";

const user = (text: string): IrTurn => ({ role: "user", parts: [{ type: "text", text }] });
const encode = (fields: Partial<IrRequest>) => {
  const context = requestContext();
  const body = encodeResponsesRequest(irRequest({ turns: [user("hi")], ...fields }), context);
  return { body, drops: context.drops };
};

/** An IR request without what the trip through an upstream body may not keep. */
function comparable(request: IrRequest): IrRequest {
  const turns = request.turns.map((turn) =>
    turn.role === "assistant"
      ? {
        ...turn,
        // Call items go without their ids: with `store: false` they name nothing upstream.
        parts: turn.parts.map((part) =>
          part.type === "tool_call" ? { ...part, itemId: undefined } : part
        ),
      }
      : turn
  );
  return { ...request, model: "", turns, store: undefined, dropped: [] } as IrRequest;
}

for (const name of CASES) {
  Deno.test(`responses request encode: ${name} goes upstream and reads back the same`, () => {
    const request = decodeResponsesRequest(fixtureJson(name, "request.json"));
    const context = requestContext();
    const body = encodeResponsesRequest(request, context);
    assert.equal(body.model, "upstream-model");
    assert.equal(body.store, false, "the gateway keeps no state");
    assert.equal(body.stream, true);
    assert.deepEqual(context.drops, []);
    assert.deepEqual(comparable(decodeResponsesRequest(body)), comparable(request));
  });
}

Deno.test("responses request encode: tool_call body, every function's strictness written", () => {
  const { body } = encode(decodeResponsesRequest(fixtureJson("tool_call", "request.json")));
  const tools = body.tools as Record<string, unknown>[];
  assert.deepEqual(tools.map((tool) => [tool.name, tool.strict]), [
    ["get_weather", true],
    ["get_time", false],
  ]);
  assert.equal(body.tool_choice, "auto");
  assert.deepEqual(body.input, [{
    type: "message",
    role: "user",
    content: [{ type: "input_text", text: "What's the weather in Paris right now?" }],
  }]);
});

/** What only other protocols can ask, and the field each refusal names. */
const REFUSED: [string, Partial<IrRequest>, string][] = [
  ["n > 1", { n: 2 }, "n"],
  ["audio output", { audio: true }, "modalities"],
];

for (const [what, fields, param] of REFUSED) {
  Deno.test(`responses request encode: ${what} is refused naming ${param}`, () => {
    assert.throws(() => encode(fields), (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.code, "convert_request_failed");
      assert.equal(error.param, param);
      return true;
    });
  });
}

Deno.test("responses request encode: n = 1, stop, top_k and a tiny cap", () => {
  const { body, drops } = encode({ n: 1, stop: ["END"], topK: 5, maxOutputTokens: 1 });
  assert.equal(body.n, undefined);
  assert.equal(body.stop, undefined);
  assert.equal(body.max_output_tokens, 16, "the API's minimum");
  assert.deepEqual(drops, ["max_output_tokens below 16", "top_k", "stop"]);
});

Deno.test("responses request encode: reasoning from a thinking budget, sampling left out", () => {
  const { body, drops } = encode({
    reasoning: { enabled: true, budgetTokens: 12_000 },
    temperature: 0.5,
    topP: 0.9,
  });
  // No summary unless asked: unverified organizations get a 400 for one.
  assert.deepEqual(body.reasoning, { effort: "medium" });
  assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
  assert.equal(body.temperature, undefined);
  assert.equal(body.top_p, undefined);
  assert.deepEqual(drops, ["temperature, top_p"]);
});

Deno.test("responses request encode: reasoning without effort or budget leaves the model's default", () => {
  const { body } = encode({ reasoning: { enabled: true } });
  assert.deepEqual(body.reasoning, {});
  const summarized = encode({ reasoning: { enabled: true, summary: "detailed" } }).body;
  assert.deepEqual(summarized.reasoning, { summary: "detailed" });
});

Deno.test("responses request encode: reasoning turned off is not sent", () => {
  const { body, drops } = encode({ reasoning: { enabled: false }, temperature: 0.3 });
  assert.equal(body.reasoning, undefined);
  assert.equal(body.include, undefined);
  assert.equal(body.temperature, 0.3);
  assert.deepEqual(drops, ["reasoning (disabled)"]);
});

Deno.test("responses request encode: log probabilities, output format, user, state", () => {
  const schema = { type: "object" };
  const { body } = encode({
    logprobs: true,
    topLogprobs: 2,
    output: { type: "json_schema", name: "a", schema, strict: true },
    user: "u-1",
    previousResponseId: "resp_prev",
    store: true,
  });
  assert.deepEqual(body.include, ["message.output_text.logprobs"]);
  assert.equal(body.top_logprobs, 2);
  assert.deepEqual(body.text, { format: { type: "json_schema", name: "a", schema, strict: true } });
  assert.equal(body.user, "u-1");
  assert.equal(body.previous_response_id, "resp_prev");
  assert.equal(body.store, true, "the client asked for it");
  assert.deepEqual(encode({ output: { type: "json_object" } }).body.text, {
    format: { type: "json_object" },
  });
  assert.equal(encode({ output: { type: "text" } }).body.text, undefined);
});

Deno.test("responses request encode: tool choice names a custom tool as custom", () => {
  const { body } = encode({
    tools: [{ kind: "custom", name: "apply_patch" }, {
      kind: "function",
      name: "f",
      parameters: {},
      strict: false,
    }],
    toolChoice: { type: "tool", name: "apply_patch" },
    parallelToolCalls: false,
  });
  assert.deepEqual(body.tool_choice, { type: "custom", name: "apply_patch" });
  assert.equal(body.parallel_tool_calls, false);
  assert.deepEqual(body.tools, [
    { type: "custom", name: "apply_patch" },
    { type: "function", name: "f", parameters: {}, strict: false },
  ]);
  assert.equal(encode({ toolChoice: { type: "required" } }).body.tool_choice, undefined);
});

Deno.test("responses request encode: Anthropic's web search becomes OpenAI's", () => {
  const { body, drops } = encode({
    tools: [{
      kind: "web_search",
      options: {
        type: "web_search_20250305",
        name: "web_search",
        allowed_domains: ["example.com"],
        max_uses: 3,
        user_location: { type: "approximate", city: "Paris", country: "FR" },
      },
    }, { kind: "web_search" }],
  });
  assert.deepEqual(body.tools, [
    {
      type: "web_search",
      filters: { allowed_domains: ["example.com"] },
      user_location: { type: "approximate", city: "Paris", country: "FR" },
    },
    { type: "web_search" },
  ]);
  assert.deepEqual(drops, ["web_search blocked_domains, max_uses"]);
});

Deno.test("responses request encode: prompt_cache_key is the client's, else the conversation's", () => {
  const request = irRequest({ turns: [user("hi")] });
  const named = { ...requestContext(), conversation: "Conv0123456789abcdefgh" };
  assert.equal(
    encodeResponsesRequest({ ...request, promptCacheKey: "codex-1" }, named).prompt_cache_key,
    "codex-1",
  );
  assert.equal(encodeResponsesRequest(request, named).prompt_cache_key, "Conv0123456789abcdefgh");
  assert.equal("prompt_cache_key" in encodeResponsesRequest(request, requestContext()), false);
});
