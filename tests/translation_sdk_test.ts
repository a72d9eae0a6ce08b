/**
 * The official SDKs through tollgate to fake upstreams of another protocol: what a client
 * sees when its model's channel speaks chat completions, responses or messages, what the
 * upstream receives, and what the ledger bills.
 */
import assert from "node:assert/strict";
import { channel } from "./harness.ts";
import type { FakeReply } from "./fakes/reply.ts";
import { usageOf } from "./fakes/reply.ts";
import {
  anthropicClient,
  fakeSays,
  gatewayWithKey,
  openaiClient,
  type Scope,
  withScope,
} from "./support.ts";

type Upstream = "chat" | "responses" | "messages";

const WEATHER_TOOL = {
  name: "get_weather",
  description: "Current weather of a city",
  parameters: {
    type: "object" as const,
    properties: { city: { type: "string" } },
    required: ["city"],
  },
};
const CALLS = [
  { id: "call_paris", name: "get_weather", arguments: '{"city":"Paris"}' },
  { id: "call_rome", name: "get_weather", arguments: '{"city":"Rome"}' },
];
const TOOL_REPLY: FakeReply = { text: "", toolCalls: CALLS };

/** A gateway whose model `m` has one channel of `upstream` to a fake named `up`. */
async function translating(s: Scope, upstream: Upstream, reply?: FakeReply[]) {
  const fake = await s.fake({ name: "up", behaviour: reply ? { replies: reply } : {} });
  const started = await gatewayWithKey(
    s,
    channel({ name: "up", protocol: upstream, models: ["m"], baseUrl: fake.url }),
    `[models.m]\ninput_price = 1\noutput_price = 2\ncached_input_price = 0.5\nmax_output_tokens = 1000\n`,
  );
  return { fake, ...started };
}

const PATHS: Record<Upstream, string> = {
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  messages: "/v1/messages",
};

for (const upstream of ["responses", "messages"] as const) {
  Deno.test(`translation sdk: openai chat on a ${upstream} channel, whole and streamed`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await translating(s, upstream);
      const client = openaiClient(gateway, secret);
      const messages = [
        { role: "system" as const, content: "Be brief." },
        { role: "user" as const, content: "hi there" },
      ];
      const completion = await client.chat.completions.create({ model: "m", messages });
      assert.equal(completion.choices[0]?.message.content, fakeSays("up"));
      assert.equal(completion.choices[0]?.finish_reason, "stop");
      assert.equal(fake.requests[0]?.path, PATHS[upstream]);
      const expected = usageOf(fake.requests[0]!.body as Record<string, unknown>, {
        text: fakeSays("up"),
      }, {});
      assert.equal(completion.usage?.prompt_tokens, expected.input);
      assert.equal(completion.usage?.completion_tokens, expected.output);

      const stream = await client.chat.completions.create({
        model: "m",
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let usage;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        usage = chunk.usage ?? usage;
      }
      assert.equal(text, fakeSays("up"));
      assert.equal(usage?.completion_tokens, expected.output);
    }));

  Deno.test(`translation sdk: openai chat tool calls accumulate from a ${upstream} channel`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await translating(s, upstream, [TOOL_REPLY]);
      const runner = openaiClient(gateway, secret).chat.completions.stream({
        model: "m",
        messages: [{ role: "user", content: "Weather in Paris and Rome?" }],
        tools: [{ type: "function", function: WEATHER_TOOL }],
      });
      const final = await runner.finalChatCompletion();
      const choice = final.choices[0]!;
      assert.equal(choice.finish_reason, "tool_calls");
      const calls = (choice.message.tool_calls ?? []).map((call) =>
        call.type === "function" ? [call.id, call.function.name, call.function.arguments] : []
      );
      assert.deepEqual(calls, CALLS.map((call) => [call.id, call.name, call.arguments]));
      const sent = JSON.stringify(fake.requests[0]?.body);
      assert.ok(sent.includes('"get_weather"'), "the tool definition reached the upstream");
    }));
}

for (const upstream of ["chat", "messages"] as const) {
  Deno.test(`translation sdk: openai responses on a ${upstream} channel, create and stream`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await translating(s, upstream);
      const client = openaiClient(gateway, secret);
      const response = await client.responses.create({
        model: "m",
        instructions: "Be brief.",
        input: "hi there",
      });
      assert.equal(response.output_text, fakeSays("up"));
      assert.equal(response.status, "completed");
      assert.equal(fake.requests[0]?.path, PATHS[upstream]);
      const expected = usageOf(fake.requests[0]!.body as Record<string, unknown>, {
        text: fakeSays("up"),
      }, {});
      assert.equal(response.usage?.input_tokens, expected.input);
      assert.equal(response.usage?.output_tokens, expected.output);

      const types: string[] = [];
      const runner = client.responses.stream({ model: "m", input: "hi there" });
      runner.on("event", (event) => types.push(event.type));
      const final = await runner.finalResponse();
      assert.equal(final.output_text, fakeSays("up"));
      assert.deepEqual(types.slice(0, 2), ["response.created", "response.in_progress"]);
      assert.equal(types.at(-1), "response.completed");
    }));

  Deno.test(`translation sdk: openai responses function calls from a ${upstream} channel`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await translating(s, upstream, [TOOL_REPLY, {
        text: "Sunny in both.",
      }]);
      const client = openaiClient(gateway, secret);
      const tools = [{ type: "function" as const, strict: false, ...WEATHER_TOOL }];
      const input = "Weather in Paris and Rome?";
      const first = await client.responses.stream({ model: "m", input, tools }).finalResponse();
      const calls = first.output.filter((item) => item.type === "function_call");
      assert.deepEqual(
        calls.map((call) => [call.call_id, call.name, call.arguments]),
        CALLS.map((call) => [call.id, call.name, call.arguments]),
      );
      const second = await client.responses.create({
        model: "m",
        tools,
        input: [
          { role: "user", content: input },
          ...calls.map(({ call_id, name, arguments: args }) => ({
            type: "function_call" as const,
            call_id,
            name,
            arguments: args,
          })),
          ...calls.map((call) => ({
            type: "function_call_output" as const,
            call_id: call.call_id,
            output: "sunny",
          })),
        ],
      });
      assert.equal(second.output_text, "Sunny in both.");
      const sent = JSON.stringify(fake.requests[1]?.body);
      for (const call of CALLS) {
        assert.ok(sent.includes(call.id), `${call.id} reached the upstream`);
      }
    }));
}

for (const upstream of ["chat", "responses"] as const) {
  Deno.test(`translation sdk: anthropic messages on a ${upstream} channel, create and stream`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await translating(s, upstream);
      const { client } = anthropicClient(gateway, secret, "x-api-key");
      const params = {
        model: "m",
        max_tokens: 200,
        system: "Be brief.",
        messages: [{ role: "user" as const, content: "hi there" }],
      };
      const message = await client.messages.create(params);
      assert.deepEqual(message.content.map((block) => block.type === "text" && block.text), [
        fakeSays("up"),
      ]);
      assert.equal(message.stop_reason, "end_turn");
      assert.equal(fake.requests[0]?.path, PATHS[upstream]);
      const expected = usageOf(fake.requests[0]!.body as Record<string, unknown>, {
        text: fakeSays("up"),
      }, {});
      assert.equal(message.usage.input_tokens, expected.input);
      assert.equal(message.usage.output_tokens, expected.output);

      const final = await client.messages.stream(params).finalMessage();
      assert.equal(final.content[0]?.type === "text" && final.content[0].text, fakeSays("up"));
      assert.equal(final.usage.input_tokens, expected.input);
      assert.equal(final.usage.output_tokens, expected.output);
    }));

  Deno.test(`translation sdk: anthropic tool_use and tool_result round trip on ${upstream}`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await translating(s, upstream, [TOOL_REPLY, {
        text: "Sunny in both.",
      }]);
      const { client } = anthropicClient(gateway, secret, "x-api-key");
      const tools = [{
        name: WEATHER_TOOL.name,
        description: WEATHER_TOOL.description,
        input_schema: WEATHER_TOOL.parameters,
      }];
      const question = { role: "user" as const, content: "Weather in Paris and Rome?" };
      const first = await client.messages.stream({
        model: "m",
        max_tokens: 200,
        tools,
        messages: [question],
      }).finalMessage();
      assert.equal(first.stop_reason, "tool_use");
      const uses = first.content.filter((block) => block.type === "tool_use");
      assert.deepEqual(uses.map((use) => [use.name, use.input]), [
        ["get_weather", { city: "Paris" }],
        ["get_weather", { city: "Rome" }],
      ]);
      const second = await client.messages.create({
        model: "m",
        max_tokens: 200,
        tools,
        messages: [question, { role: "assistant", content: first.content }, {
          role: "user",
          content: uses.map((use) => ({
            type: "tool_result" as const,
            tool_use_id: use.id,
            content: "sunny",
          })),
        }],
      });
      assert.deepEqual(second.content.map((block) => block.type === "text" && block.text), [
        "Sunny in both.",
      ]);
      const sent = JSON.stringify(fake.requests[1]?.body);
      for (const use of uses) assert.ok(sent.includes(use.id), `${use.id} reached the upstream`);
    }));
}

const DIRECTIONS: [client: Upstream, upstream: Upstream][] = [
  ["chat", "responses"],
  ["chat", "messages"],
  ["responses", "chat"],
  ["responses", "messages"],
  ["messages", "chat"],
  ["messages", "responses"],
];

for (const [client, upstream] of DIRECTIONS) {
  Deno.test(`translation sdk: the ledger bills a ${client} request on ${upstream} exactly`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await translating(s, upstream);
      fake.setBehaviour({ cachedTokens: 3, cacheWriteTokens: upstream === "chat" ? 0 : 2 });
      const prompt = "hi there, a longer prompt";
      const body = client === "chat"
        ? { model: "m", messages: [{ role: "user", content: prompt }] }
        : client === "responses"
        ? { model: "m", input: prompt }
        : { model: "m", max_tokens: 100, messages: [{ role: "user", content: prompt }] };
      for (const stream of [false, true]) {
        const response = await gateway.post(PATHS[client], secret, { ...body, stream });
        assert.equal(response.status, 200);
        await response.text();
      }
      const rows = await gateway.ledger();
      assert.equal(rows.length, 2);
      for (const [index, row] of rows.entries()) {
        const expected = usageOf(fake.requests[index]!.body as Record<string, unknown>, {
          text: fakeSays("up", prompt),
        }, { cached: 3, cacheWrite: upstream === "chat" ? 0 : 2 });
        assert.equal(row.status, "ok");
        assert.equal(row.estimated, 0, "usage came from the upstream's report");
        assert.equal(row.input_tokens, expected.input);
        assert.equal(row.output_tokens, expected.output);
        assert.equal(row.cached_tokens, expected.cached);
        assert.equal(row.cache_write_tokens, expected.cacheWrite);
        // input 1 $/M, cached 0.5 $/M, writes at the input price, output 2 $/M.
        const cost = (expected.input - expected.cached) + expected.cached * 0.5 +
          expected.output * 2;
        assert.equal(row.cost_micros, Math.round(cost));
      }
    }));
}

Deno.test("translation sdk: a messages upstream's 529 is 503 with Retry-After for a chat client", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await translating(s, "messages");
    fake.setBehaviour({ error: { status: 529, headers: { "retry-after": "30" } } });
    const response = await gateway.post(PATHS.chat, secret, {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    const body = await response.json();
    assert.equal(response.status, 503, JSON.stringify(body));
    assert.equal(response.headers.get("retry-after"), "30");
    assert.equal(typeof body.error?.message, "string");
  }));
