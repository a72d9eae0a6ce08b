/**
 * The official SDKs through tollgate to fake upstreams of the same protocol: what a
 * client built on them sees, and what reaches the upstream.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { protocolOf } from "../src/protocols/index.ts";
import { countPromptTokens } from "../src/tokens/token_count.ts";
import { loadTokenCounter } from "../src/tokens/token_count.ts";
import { channel, type ChannelOptions } from "./harness.ts";
import {
  anthropicClient,
  channelToFake,
  fakeSays,
  gatewayWithKey,
  openaiClient,
  type Scope,
  withScope,
} from "./support.ts";

const messages = [{ role: "user" as const, content: "hi there" }];

// The single channels the tests use, each behind a fake named like it.
const ALPHA_CHAT = { name: "alpha", protocol: "chat", models: ["m1"] };
const BETA_RESPONSES = { name: "beta", protocol: "responses", models: ["r1"] };
const GAMMA_MESSAGES = { name: "gamma", protocol: "messages", models: ["c1"] };

/** `channelToFake` with the fake named after the channel, so it answers `fakeSays(name)`. */
function namedChannelToFake(s: Scope, route: Omit<ChannelOptions, "baseUrl">) {
  return channelToFake(s, route, { name: route.name });
}

Deno.test("sdk: openai chat non-stream reaches the chat channel with its own key", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await namedChannelToFake(s, {
      ...ALPHA_CHAT,
      keys: ["sk-upstream-alpha"],
    });
    const completion = await openaiClient(gateway, secret).chat.completions.create({
      model: "m1",
      messages,
    });
    assert.equal(completion.choices[0]?.message.content, fakeSays("alpha"));
    assert.ok((completion.usage?.completion_tokens ?? 0) > 0);
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0]?.path, "/v1/chat/completions");
    assert.equal(fake.requests[0]?.headers.authorization, "Bearer sk-upstream-alpha");
  }));

Deno.test("sdk: openai chat stream without include_usage gets text and no usage chunk", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await namedChannelToFake(s, ALPHA_CHAT);
    const stream = await openaiClient(gateway, secret).chat.completions.create({
      model: "m1",
      messages,
      stream: true,
    });
    let text = "";
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk);
      text += chunk.choices[0]?.delta.content ?? "";
    }
    assert.equal(text, fakeSays("alpha"));
    assert.ok(chunks.length > 2);
    assert.equal(chunks.filter((chunk) => chunk.choices.length === 0).length, 0);
    assert.equal(chunks.filter((chunk) => chunk.usage).length, 0);
    // tollgate asked for usage on the client's behalf, to meter the stream.
    const upstream = fake.requests[0]?.body as { stream_options?: { include_usage?: boolean } };
    assert.equal(upstream.stream_options?.include_usage, true);
  }));

Deno.test("sdk: openai chat stream with include_usage receives the usage chunk", () =>
  withScope(async (s) => {
    const { gateway, secret } = await namedChannelToFake(s, ALPHA_CHAT);
    const stream = await openaiClient(gateway, secret).chat.completions.create({
      model: "m1",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    const usageChunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      if (chunk.choices.length === 0 && chunk.usage) usageChunks.push(chunk);
    }
    assert.equal(text, fakeSays("alpha"));
    assert.equal(usageChunks.length, 1);
    assert.ok((usageChunks[0]?.usage?.completion_tokens ?? 0) > 0);
    assert.ok((usageChunks[0]?.usage?.prompt_tokens ?? 0) > 0);
  }));

Deno.test("sdk: openai responses non-stream returns the upstream's output text", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await namedChannelToFake(s, BETA_RESPONSES);
    const response = await openaiClient(gateway, secret).responses.create({
      model: "r1",
      input: "hi there",
    });
    assert.equal(response.output_text, fakeSays("beta"));
    assert.equal(response.status, "completed");
    assert.equal(fake.requests[0]?.path, "/v1/responses");
  }));

Deno.test("sdk: openai responses stream has the same event types as the upstream direct", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await namedChannelToFake(s, BETA_RESPONSES);
    const params = {
      model: "r1",
      input: [{
        role: "user" as const,
        content: [{ type: "input_text" as const, text: "hi there" }],
      }],
    };

    const runner = openaiClient(gateway, secret).responses.stream(params);
    const viaGateway: string[] = [];
    for await (const event of runner) viaGateway.push(event.type);
    const final = await runner.finalResponse();
    assert.equal(final.output_text, fakeSays("beta"));

    const direct = new OpenAI({ apiKey: "sk-direct", baseURL: fake.url, maxRetries: 0 });
    const directStream = await direct.responses.create({ ...params, stream: true });
    const viaDirect: string[] = [];
    for await (const event of directStream) viaDirect.push(event.type);

    assert.equal(viaDirect[0], "response.created");
    assert.equal(viaDirect.at(-1), "response.completed");
    assert.deepEqual(viaGateway, viaDirect);
  }));

for (const auth of ["x-api-key", "bearer"] as const) {
  Deno.test(`sdk: anthropic messages non-stream and stream with ${auth}`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await namedChannelToFake(s, {
        ...GAMMA_MESSAGES,
        keys: ["sk-ant-upstream"],
      });
      const { client, sent } = anthropicClient(gateway, secret, auth);

      const message = await client.messages.create({ model: "c1", max_tokens: 100, messages });
      assert.deepEqual(message.content.map((block) => block.type), ["text"]);
      assert.equal(
        message.content[0]?.type === "text" && message.content[0].text,
        fakeSays("gamma"),
      );
      assert.ok(message.usage.output_tokens > 0);

      const streamed = await client.messages.stream({ model: "c1", max_tokens: 100, messages })
        .finalMessage();
      assert.equal(
        streamed.content[0]?.type === "text" && streamed.content[0].text,
        fakeSays("gamma"),
      );
      assert.equal(streamed.stop_reason, "end_turn");

      // The client really used the header under test.
      for (const headers of sent) {
        if (auth === "x-api-key") {
          assert.equal(headers.get("x-api-key"), secret);
          assert.equal(headers.get("authorization"), null);
        } else {
          assert.equal(headers.get("authorization"), `Bearer ${secret}`);
          assert.equal(headers.get("x-api-key"), null);
        }
      }
      // The upstream saw the channel's key, never the client's.
      assert.equal(fake.requests.length, 2);
      for (const request of fake.requests) {
        assert.equal(request.path, "/v1/messages");
        assert.equal(request.headers["x-api-key"], "sk-ant-upstream");
        assert.equal(request.headers.authorization, undefined);
      }
    }));
}

Deno.test("sdk: anthropic beta messages reach the upstream with the query kept", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await namedChannelToFake(s, GAMMA_MESSAGES);
    const { client, urls } = anthropicClient(gateway, secret, "x-api-key");
    // SDK 1.x no longer adds `?beta=true` by itself, so the request option adds it, as
    // older SDKs and Claude Code do.
    const message = await client.beta.messages.create(
      { model: "c1", max_tokens: 100, messages, betas: ["context-management-2025-06-27"] },
      { query: { beta: "true" } },
    );
    assert.equal(message.content[0]?.type === "text" && message.content[0].text, fakeSays("gamma"));
    assert.equal(new URL(urls[0]!).search, "?beta=true");
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0]?.path, "/v1/messages");
    assert.equal(fake.requests[0]?.search, "?beta=true");
    assert.equal(fake.requests[0]?.headers["anthropic-beta"], "context-management-2025-06-27");
  }));

Deno.test("sdk: models.list works in both SDKs and honours the key's restriction", () =>
  withScope(async (s) => {
    const fake = await s.fake();
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "a", protocol: "chat", baseUrl: fake.url, models: ["m2", "m1"] }) +
        channel({ name: "b", protocol: "messages", baseUrl: fake.url, models: ["c1"] }) +
        channel({ name: "echo", protocol: "echo", models: ["echo"] }),
    );
    const restricted = await gateway.createKey({ models: ["m1", "c1", "not-served"] });

    const openaiIds: string[] = [];
    for await (const model of openaiClient(gateway, secret).models.list()) {
      assert.equal(model.object, "model");
      openaiIds.push(model.id);
    }
    assert.deepEqual(openaiIds, ["c1", "echo", "m1", "m2"]);

    const anthropicIds: string[] = [];
    const { client } = anthropicClient(gateway, secret, "x-api-key");
    for await (const model of client.models.list()) {
      assert.equal(model.type, "model");
      assert.equal(model.display_name, model.id);
      assert.ok(!Number.isNaN(Date.parse(model.created_at)));
      anthropicIds.push(model.id);
    }
    assert.deepEqual(anthropicIds, ["c1", "echo", "m1", "m2"]);

    const restrictedIds: string[] = [];
    for await (const model of openaiClient(gateway, restricted.secret).models.list()) {
      restrictedIds.push(model.id);
    }
    assert.deepEqual(restrictedIds, ["c1", "m1"]);
    assert.equal(fake.requests.length, 0, "the model list is the gateway's own");
  }));

Deno.test("sdk: anthropic countTokens is relayed to a messages channel", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await namedChannelToFake(s, {
      ...GAMMA_MESSAGES,
      extra: 'model_map = { c1 = "claude-upstream" }',
    });
    const { client } = anthropicClient(gateway, secret, "bearer");
    const params = { model: "c1", system: "Be brief.", messages };
    const count = await client.messages.countTokens(params);
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0]?.path, "/v1/messages/count_tokens");
    assert.deepEqual(fake.requests[0]?.body, { ...params, model: "claude-upstream" });
    assert.equal(
      count.input_tokens,
      countPromptTokens(protocolOf("messages").promptText(params), await loadTokenCounter()),
    );
  }));

Deno.test("sdk: anthropic countTokens is estimated when the model has only an echo channel", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "gamma" });
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "echo", protocol: "echo", models: ["echo"] }) +
        channel({ name: "gamma", protocol: "messages", baseUrl: fake.url, models: ["c1"] }),
    );
    const { client } = anthropicClient(gateway, secret, "x-api-key");
    const short = await client.messages.countTokens({ model: "echo", messages });
    const long = await client.messages.countTokens({
      model: "echo",
      messages: [{ role: "user", content: "hi there ".repeat(50) }],
    });
    assert.ok(short.input_tokens > 0);
    assert.ok(long.input_tokens > short.input_tokens);
    assert.equal(fake.requests.length, 0, "no upstream is asked to count for an echo model");
  }));

Deno.test("sdk: anthropic countTokens is estimated when the model has no messages channel", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await namedChannelToFake(s, {
      name: "delta",
      protocol: "chat",
      models: ["gpt"],
    });
    const { client } = anthropicClient(gateway, secret, "x-api-key");
    const count = await client.messages.countTokens({ model: "gpt", messages });
    assert.equal(
      count.input_tokens,
      countPromptTokens(protocolOf("messages").promptText({ messages }), await loadTokenCounter()),
    );
    assert.equal(fake.requests.length, 0, "a chat upstream cannot count messages tokens");
  }));

Deno.test("sdk: a stream broken mid-way raises an error in both SDKs", () =>
  withScope(async (s) => {
    // Each breaks after two pieces of text, past its protocol's preamble (the fakes').
    const chatFake = await s.fake({ name: "broken", behaviour: { breakAfter: 1 + 2 } });
    const responsesFake = await s.fake({ name: "broken", behaviour: { breakAfter: 4 + 2 } });
    const messagesFake = await s.fake({ name: "broken", behaviour: { breakAfter: 3 + 2 } });
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "chat", protocol: "chat", baseUrl: chatFake.url, models: ["m1"] }) +
        channel({
          name: "resp",
          protocol: "responses",
          baseUrl: responsesFake.url,
          models: ["r1"],
        }) +
        channel({ name: "msg", protocol: "messages", baseUrl: messagesFake.url, models: ["c1"] }),
    );
    const openai = openaiClient(gateway, secret);
    const long = "one two three four five six seven eight";

    const chat = await openai.chat.completions.create({
      model: "m1",
      messages: [{ role: "user", content: long }],
      stream: true,
    });
    await assert.rejects(
      async () => {
        for await (const _ of chat) { /* drain */ }
      },
      (error: unknown) => error instanceof OpenAI.APIError && /broke off/.test(error.message),
    );

    const responses = await openai.responses.create({ model: "r1", input: long, stream: true });
    await assert.rejects(
      async () => {
        for await (const _ of responses) { /* drain */ }
      },
      (error: unknown) => error instanceof OpenAI.APIError && /broke off/.test(error.message),
    );

    const { client } = anthropicClient(gateway, secret, "x-api-key");
    await assert.rejects(
      () =>
        client.messages.stream({
          model: "c1",
          max_tokens: 100,
          messages: [{ role: "user", content: long }],
        }).finalMessage(),
      (error: unknown) => error instanceof Error && /broke off/.test(error.message),
    );
    const sent = [chatFake, responsesFake, messagesFake].map((fake) => fake.requests.length);
    assert.deepEqual(sent, [1, 1, 1], "no request was retried once its answer had begun");
  }));
