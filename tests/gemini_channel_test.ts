/**
 * `protocol = "gemini"` channels (design.md: base_url ends in the API version; tollgate
 * appends `/models/{model}:generateContent` or `:streamGenerateContent?alt=sse`, the key in
 * `x-goog-api-key`), behind a fake that speaks Gemini's wire format (fakes/gemini_wire.ts):
 * a Gemini client's body passed through, the other SDKs translated to it, thinking tokens
 * billed as output to the micro-USD, failover away from a failing gemini channel and a
 * rescue onto one (a trailing `model` turn), and a channel key Google refuses.
 */
import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { FunctionCallingConfigMode } from "@google/genai";
import { channel, configWith } from "./harness.ts";
import { fakeSays, openaiClient, type Scope, withScope } from "./support.ts";
import { genaiClient, WEATHER_CALL, WEATHER_TOOL } from "./gemini_support.ts";
import type { Behaviour } from "./fakes/upstream.ts";
import { trailingAssistantText } from "./fakes/prefill.ts";
import { adminJson } from "./admin_support.ts";
import type { ChannelCheckJson } from "../src/admin/channel_check.ts";

const PRICES = `[models.g1]\ninput_price = 1.25\noutput_price = 10\nreasoning = true\n`;

/** A gateway whose one channel `google` speaks gemini to a fake, model `g1` (`gemini-x` upstream). */
async function geminiGateway(s: Scope, behaviour: Behaviour = {}, extra = PRICES) {
  const fake = await s.fake({ name: "google", behaviour });
  const gateway = await s.gateway(configWith(
    channel({
      name: "google",
      protocol: "gemini",
      baseUrl: fake.url,
      models: ["g1"],
      keys: ["AIza-upstream"],
      extra: `model_map = { g1 = "gemini-x" }`,
    }),
    extra,
  ));
  const { secret, account } = await gateway.createKey();
  return { fake, gateway, secret, account };
}

Deno.test("gemini channel: a Gemini client's body passes through, whole and streamed", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await geminiGateway(s);
    const ai = genaiClient(gateway, secret, "v1beta");
    const body = {
      model: "g1",
      contents: "hi there",
      config: { topK: 40, thinkingConfig: { thinkingBudget: 512 } },
    };
    const answer = await ai.models.generateContent(body);
    assert.equal(answer.text, fakeSays("google"));
    const stream = await ai.models.generateContentStream(body);
    let text = "";
    for await (const chunk of stream) text += chunk.text ?? "";
    assert.equal(text, fakeSays("google"));
    const [whole, streamed] = fake.requests;
    assert.equal(whole?.path, "/v1/models/gemini-x:generateContent");
    assert.equal(whole?.search, "");
    assert.equal(whole?.headers["x-goog-api-key"], "AIza-upstream");
    assert.equal(whole?.headers.authorization, undefined);
    assert.equal(streamed?.path, "/v1/models/gemini-x:streamGenerateContent");
    assert.equal(streamed?.search, "?alt=sse");
    // Passed through: Google's own fields as the SDK wrote them, no model in the body.
    const sent = whole!.body as Record<string, unknown>;
    assert.equal(sent.model, undefined);
    assert.deepEqual(sent.generationConfig, { topK: 40, thinkingConfig: { thinkingBudget: 512 } });
    assert.equal(answer.modelVersion, "gemini-x");
  }));

Deno.test("gemini channel: a function call and its response pass through; countTokens is Google's", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await geminiGateway(s, {
      replies: [{ text: "", toolCalls: [WEATHER_CALL] }, { text: "Sunny." }],
    });
    const ai = genaiClient(gateway, secret);
    const config = {
      tools: [{ functionDeclarations: [WEATHER_TOOL] }],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
    };
    const asked = { role: "user", parts: [{ text: "Weather in Lisbon?" }] };
    const first = await ai.models.generateContent({ model: "g1", contents: [asked], config });
    assert.deepEqual(first.functionCalls?.map((call) => [call.name, call.args]), [
      ["get_weather", { city: "Lisbon" }],
    ]);
    const answer = await ai.models.generateContent({
      model: "g1",
      config,
      contents: [asked, first.candidates![0]!.content!, {
        role: "user",
        parts: [{ functionResponse: { name: "get_weather", response: { output: "sunny" } } }],
      }],
    });
    assert.equal(answer.text, "Sunny.");
    assert.match(JSON.stringify(fake.requests[1]!.body), /"functionResponse"/);
    const counted = await ai.models.countTokens({ model: "g1", contents: "count these words" });
    assert.ok((counted.totalTokens ?? 0) > 0);
    assert.equal(fake.requests[2]?.path, "/v1/models/gemini-x:countTokens");
    assert.equal(fake.requests[2]?.headers["x-goog-api-key"], "AIza-upstream");
  }));

Deno.test("gemini channel: OpenAI and Anthropic clients are translated to it; thoughts bill as output", () =>
  withScope(async (s) => {
    const { fake, gateway, secret, account } = await geminiGateway(s, {
      reply: { reasoning: { text: "Let me think about it.", opaque: "c2lnbmF0dXJl" } },
    });
    const openai = openaiClient(gateway, secret);
    const completion = await openai.chat.completions.create({
      model: "g1",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi there" }],
      max_tokens: 200,
      reasoning_effort: "low",
    });
    assert.equal(completion.choices[0]?.message.content, fakeSays("google"));
    const sent = fake.requests[0]!.body as Record<string, Record<string, unknown>>;
    assert.deepEqual(sent.systemInstruction, { parts: [{ text: "Be brief." }] });
    assert.equal(sent.generationConfig?.maxOutputTokens, 200);
    assert.ok(sent.generationConfig?.thinkingConfig, JSON.stringify(sent));
    // Usage: the fake's thoughts count as output tokens, billed at the output price.
    const usage = completion.usage!;
    const [row] = await gateway.ledger();
    assert.equal(row?.input_tokens, usage.prompt_tokens);
    assert.equal(row?.output_tokens, usage.completion_tokens);
    assert.ok((usage.completion_tokens_details?.reasoning_tokens ?? 0) > 0);
    assert.equal(
      row?.cost_micros,
      Math.round((usage.prompt_tokens * 1.25 + usage.completion_tokens * 10) / 1e6 * 1e6),
    );
    const balance = await gateway.account(account);
    assert.equal(balance.balance_micros, 0);

    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 });
    const stream = anthropic.messages.stream({
      model: "g1",
      max_tokens: 300,
      messages: [{ role: "user", content: "hi there" }],
    });
    const message = await stream.finalMessage();
    const text = message.content.filter((block) => block.type === "text").map((b) => b.text);
    assert.deepEqual(text, [fakeSays("google")]);
    assert.equal(fake.requests[1]?.path, "/v1/models/gemini-x:streamGenerateContent");
    assert.ok(message.usage.output_tokens > 0);
  }));

Deno.test("gemini channel: a failing gemini channel fails over; a rescue continues on one with prefill", () =>
  withScope(async (s) => {
    const google = await s.fake({ name: "google", behaviour: { error: { status: 503 } } });
    const chat = await s.fake({ name: "chat" });
    const gateway = await s.gateway(configWith(
      channel({
        name: "google",
        protocol: "gemini",
        baseUrl: google.url,
        models: ["m"],
        priority: 2,
      }) +
        channel({ name: "chat", protocol: "chat", baseUrl: chat.url, models: ["m"], priority: 1 }),
      "[failover]\nretries = 0\n",
    ));
    const { secret } = await gateway.createKey();
    const answer = await genaiClient(gateway, secret).models.generateContent({
      model: "m",
      contents: "hi there",
    });
    assert.equal(answer.text, fakeSays("chat"));
    assert.equal(google.requests.length, 1);

    // A chat stream cut mid-text is continued by the gemini channel, given the text so far.
    const answerText = "The quick brown fox jumps over the lazy dog.";
    google.setBehaviour({ answer: answerText });
    chat.setBehaviour({ answer: answerText, cut: { after: 3 } });
    const rescued = await s.gateway(configWith(
      channel({ name: "chat", protocol: "chat", baseUrl: chat.url, models: ["r"], priority: 2 }) +
        channel({
          name: "google",
          protocol: "gemini",
          baseUrl: google.url,
          models: ["r"],
          priority: 1,
          extra: "prefill = true",
        }),
    ));
    const key = await rescued.createKey();
    const stream = await genaiClient(rescued, key.secret).models.generateContentStream({
      model: "r",
      contents: "hi there",
    });
    let text = "";
    for await (const chunk of stream) text += chunk.text ?? "";
    assert.equal(text, answerText);
    const continuation = google.requests.at(-1)!;
    assert.equal(continuation.path, "/v1/models/r:streamGenerateContent");
    assert.equal(
      trailingAssistantText(continuation.body as Record<string, unknown>),
      "The quick brown",
    );
  }));

Deno.test("gemini channel: a key Google calls invalid (400 API_KEY_INVALID) is the channel's, not the client's", () =>
  withScope(async (s) => {
    const invalid = {
      error: {
        code: 400,
        message: "API key not valid. Please pass a valid API key.",
        status: "INVALID_ARGUMENT",
        details: [{
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: "API_KEY_INVALID",
          domain: "googleapis.com",
        }],
      },
    };
    const { gateway, secret } = await geminiGateway(s, {
      error: { status: 400, body: { gemini: invalid } },
    });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "g1", messages: [{ role: "user", content: "hi" }] }),
    });
    const body = await response.json();
    assert.notEqual(response.status, 400, JSON.stringify(body));
    assert.ok(response.status >= 500, JSON.stringify(body));
  }));

Deno.test("gemini channel: the admin's test sends it one small request in Gemini's protocol", () =>
  withScope(async (s) => {
    const { fake, gateway } = await geminiGateway(s);
    const check = await adminJson<ChannelCheckJson>(gateway, "/admin/api/channels/google/test", {
      key: gateway.server.firstKey!,
      method: "POST",
    });
    assert.deepEqual(
      [check.ok, check.status, check.protocol, check.upstream_model, check.error],
      [true, 200, "gemini", "gemini-x", null],
    );
    assert.match(check.answer ?? "", /Reply with the word ok/);
    assert.ok((check.output_tokens ?? 0) > 0);
    const sent = fake.requests.at(-1)!;
    assert.equal(sent.path, "/v1/models/gemini-x:generateContent");
    assert.equal(sent.headers["x-goog-api-key"], "AIza-upstream");
    assert.deepEqual((sent.body as Record<string, unknown>).generationConfig, {
      maxOutputTokens: 16,
    });
  }));

Deno.test("gemini channel: Gemini's thought signature goes to an Anthropic client and back with its call", () =>
  withScope(async (s) => {
    const call = { id: "toolu_1", name: "get_weather", arguments: '{"city":"Lisbon"}' };
    const { fake, gateway, secret } = await geminiGateway(s, {
      replies: [
        { text: "", toolCalls: [call], reasoning: { text: "Check it.", opaque: "R2VtaW5pU2ln" } },
        { text: "Sunny." },
      ],
    });
    const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: secret, maxRetries: 0 });
    const tools = [{
      name: "get_weather",
      description: "The weather in a city.",
      input_schema: {
        type: "object" as const,
        properties: { city: { type: "string" } },
        required: ["city"],
      },
    }];
    const asked = { role: "user" as const, content: "Weather in Lisbon?" };
    const first = await anthropic.messages.stream({
      model: "g1",
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools,
      messages: [asked],
    }).finalMessage();
    const thinking = first.content.find((block) => block.type === "thinking");
    assert.ok(thinking && thinking.type === "thinking", JSON.stringify(first.content));
    assert.match(thinking.signature, /R2VtaW5pU2ln/);
    const use = first.content.find((block) => block.type === "tool_use")!;
    assert.equal(use.type, "tool_use");
    const answer = await anthropic.messages.create({
      model: "g1",
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools,
      messages: [
        asked,
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: use.id, content: "sunny" }],
        },
      ],
    });
    assert.deepEqual(answer.content.filter((b) => b.type === "text").map((b) => b.text), [
      "Sunny.",
    ]);
    // The call went back to Gemini with the signature Gemini gave it, not a placeholder.
    const contents = (fake.requests[1]!.body as { contents: Record<string, unknown>[] }).contents;
    const model = contents.find((content) => content.role === "model") as {
      parts: Record<string, unknown>[];
    };
    const callPart = model.parts.find((part) => part.functionCall);
    assert.equal(callPart?.thoughtSignature, "R2VtaW5pU2ln", JSON.stringify(model));
  }));

Deno.test("gemini channel: every turn of a Gemini client's conversation goes to one channel and key", () =>
  withScope(async (s) => {
    const a = await s.fake({ name: "a" });
    const b = await s.fake({ name: "b" });
    const gateway = await s.gateway(configWith(
      channel({
        name: "a",
        protocol: "gemini",
        baseUrl: a.url,
        models: ["m"],
        keys: ["a0", "a1"],
      }) +
        channel({
          name: "b",
          protocol: "gemini",
          baseUrl: b.url,
          models: ["m"],
          keys: ["b0", "b1"],
        }),
    ));
    const { secret } = await gateway.createKey();
    const ai = genaiClient(gateway, secret);
    const contents: { role: string; parts: { text: string }[] }[] = [];
    for (const question of ["Plan a trip.", "To Lisbon.", "In May.", "For two."]) {
      contents.push({ role: "user", parts: [{ text: question }] });
      const answer = await ai.models.generateContent({
        model: "m",
        contents,
        config: { systemInstruction: "You plan trips." },
      });
      contents.push({ role: "model", parts: [{ text: answer.text ?? "" }] });
    }
    const keys = [...a.requests, ...b.requests].map((request) => request.headers["x-goog-api-key"]);
    assert.equal(keys.length, 4);
    assert.equal(new Set(keys).size, 1, keys.join(", "));
  }));
