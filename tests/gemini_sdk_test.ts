/**
 * The official `@google/genai` SDK through tollgate's Gemini entry point to a channel of
 * each other protocol (chat, responses, messages, behind a fake upstream) and to the echo:
 * whole and streamed answers, a function call and its response, countTokens, the model
 * list, a bad key; and what a Gemini client's request leaves behind (its `?key=` nowhere).
 */
import assert from "node:assert/strict";
import { ApiError, type Content, FunctionCallingConfigMode } from "@google/genai";
import type { Behaviour } from "./fakes/upstream.ts";
import { channel, configWith } from "./harness.ts";
import { fakeSays, parseEvents, readEvents, type Scope, withScope } from "./support.ts";
import { genaiClient, WEATHER_CALL, WEATHER_TOOL } from "./gemini_support.ts";
import { ManualClock } from "./fakes/manual_clock.ts";

const PROTOCOLS = ["chat", "responses", "messages"] as const;
type Upstream = typeof PROTOCOLS[number];

/** A gateway with a channel of each protocol (model `m-<protocol>`) to one fake, and echo. */
async function gatewayToFake(s: Scope, behaviour: Behaviour = {}, extra = "") {
  const fake = await s.fake({ name: "up", behaviour });
  const channels =
    PROTOCOLS.map((protocol) =>
      channel({ name: protocol, protocol, baseUrl: fake.url, models: [`m-${protocol}`] })
    ).join("") + channel({ name: "echo", protocol: "echo", models: ["echo"] });
  const gateway = await s.gateway(configWith(channels, extra));
  const { secret, account } = await gateway.createKey();
  return { fake, gateway, secret, account };
}

for (const protocol of PROTOCOLS) {
  Deno.test(`gemini sdk: a whole answer from a ${protocol} channel`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await gatewayToFake(s);
      for (const apiVersion of ["v1", "v1beta"] as const) {
        const ai = genaiClient(gateway, secret, apiVersion);
        const answer = await ai.models.generateContent({
          model: `m-${protocol}`,
          contents: "hi there",
          config: { systemInstruction: "Be brief.", temperature: 0.5, maxOutputTokens: 100 },
        });
        assert.equal(answer.text, fakeSays("up"));
        assert.equal(answer.candidates?.[0]?.finishReason, "STOP");
        assert.ok((answer.usageMetadata?.promptTokenCount ?? 0) > 0);
        assert.ok((answer.usageMetadata?.candidatesTokenCount ?? 0) > 0);
      }
      assert.equal(fake.requests.length, 2);
      const sent = fake.requests[0]!;
      assert.equal(sent.path, `/v1/${protocol === "chat" ? "chat/completions" : protocol}`);
      assert.equal(sent.search, "");
      assert.match(JSON.stringify(sent.body), /Be brief\./);
      const rows = await gateway.ledger();
      assert.deepEqual(rows.map((row) => [row.model, row.status]), [
        [`m-${protocol}`, "ok"],
        [`m-${protocol}`, "ok"],
      ]);
    }));

  Deno.test(`gemini sdk: a stream from a ${protocol} channel`, () =>
    withScope(async (s) => {
      const { gateway, secret } = await gatewayToFake(s);
      const stream = await genaiClient(gateway, secret).models.generateContentStream({
        model: `m-${protocol}`,
        contents: "one two three",
      });
      let text = "";
      let last;
      for await (const chunk of stream) {
        text += chunk.text ?? "";
        last = chunk;
      }
      assert.equal(text, fakeSays("up", "one two three"));
      assert.equal(last?.candidates?.[0]?.finishReason, "STOP");
      assert.ok((last?.usageMetadata?.candidatesTokenCount ?? 0) > 0);
      const [row] = await gateway.ledger();
      assert.ok(row!.output_tokens > 0);
    }));

  Deno.test(`gemini sdk: a function call and its response through a ${protocol} channel`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await gatewayToFake(s, {
        replies: [
          { text: "", toolCalls: [WEATHER_CALL] },
          { text: "", toolCalls: [WEATHER_CALL] },
          { text: "Sunny in Lisbon." },
        ],
      });
      const ai = genaiClient(gateway, secret);
      const model = `m-${protocol}`;
      const config = {
        tools: [{ functionDeclarations: [WEATHER_TOOL] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
      };
      const asked: Content = { role: "user", parts: [{ text: "Weather in Lisbon?" }] };
      const whole = await ai.models.generateContent({ model, contents: [asked], config });
      assert.deepEqual(whole.functionCalls?.map((call) => [call.name, call.args]), [
        ["get_weather", { city: "Lisbon" }],
      ]);
      // Streamed, the call arrives whole in one chunk, as Google sends it.
      const stream = await ai.models.generateContentStream({ model, contents: [asked], config });
      const calls = [];
      for await (const chunk of stream) calls.push(...chunk.functionCalls ?? []);
      assert.deepEqual(calls.map((call) => [call.name, call.args]), [
        ["get_weather", { city: "Lisbon" }],
      ]);
      // The call's response goes back in the history; the upstream sees its own tool result.
      const answer = await ai.models.generateContent({
        model,
        config,
        contents: [
          asked,
          whole.candidates![0]!.content!,
          {
            role: "user",
            parts: [{
              functionResponse: {
                id: whole.functionCalls![0]!.id,
                name: "get_weather",
                response: { output: "sunny" },
              },
            }],
          },
        ],
      });
      assert.equal(answer.text, "Sunny in Lisbon.");
      const upstream = JSON.stringify(fake.requests[2]!.body);
      const result = {
        chat: /"role":"tool","tool_call_id":"call_1"|"tool_call_id":"call_1"/,
        responses: /"type":"function_call_output"/,
        messages: /"type":"tool_result"/,
      }[protocol];
      assert.match(upstream, result);
      assert.match(upstream, /sunny/);
      assert.match(upstream, /get_weather/);
    }));

  Deno.test(`gemini sdk: countTokens for a model of a ${protocol} channel`, () =>
    withScope(async (s) => {
      const { fake, gateway, secret } = await gatewayToFake(s);
      const counted = await genaiClient(gateway, secret).models.countTokens({
        model: `m-${protocol}`,
        contents: "How many tokens is this sentence?",
      });
      assert.ok((counted.totalTokens ?? 0) >= 7, JSON.stringify(counted));
      // Counted by tollgate: no channel of another protocol answers Gemini's count.
      assert.equal(fake.requests.length, 0);
      assert.equal((await gateway.ledger()).length, 0);
    }));
}

Deno.test("gemini sdk: the echo channel answers, whole and streamed, with honest usage", () =>
  withScope(async (s) => {
    const { gateway, secret } = await gatewayToFake(s);
    const ai = genaiClient(gateway, secret, "v1beta");
    const answer = await ai.models.generateContent({ model: "echo", contents: "hello there" });
    assert.equal(answer.text, "hello there");
    assert.equal(answer.usageMetadata?.candidatesTokenCount, 2);
    const stream = await ai.models.generateContentStream({ model: "echo", contents: "a b c" });
    const pieces = [];
    for await (const chunk of stream) pieces.push(chunk.text ?? "");
    assert.equal(pieces.join(""), "a b c");
    assert.ok(pieces.length >= 3);
  }));

Deno.test("gemini sdk: models.list pages Google's list, and OpenAI clients keep theirs", () =>
  withScope(async (s) => {
    const { gateway, secret } = await gatewayToFake(s);
    for (const apiVersion of ["v1", "v1beta"] as const) {
      const pager = await genaiClient(gateway, secret, apiVersion).models.list({
        config: { pageSize: 2 },
      });
      const names = [];
      for await (const model of pager) names.push(model.name);
      assert.deepEqual(names.sort(), [
        "models/echo",
        "models/m-chat",
        "models/m-messages",
        "models/m-responses",
      ]);
    }
    const page = await fetch(`${gateway.url}/v1beta/models?pageSize=3`, {
      headers: { "x-goog-api-key": secret },
    });
    const body = await page.json();
    assert.equal(body.models.length, 3);
    assert.equal(body.nextPageToken, "3");
    const model = await genaiClient(gateway, secret).models.get({ model: "m-chat" });
    assert.equal(model.name, "models/m-chat");
    // The same path with a Bearer key: OpenAI's list, as before.
    const openai = await fetch(`${gateway.url}/v1/models`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    const list = await openai.json();
    assert.equal(list.object, "list");
    assert.ok(list.data.some((record: { id: string }) => record.id === "m-chat"));
  }));

Deno.test("gemini sdk: a bad key is Google's 401 UNAUTHENTICATED, an unknown model too is in its shape", () =>
  withScope(async (s) => {
    const { gateway, secret } = await gatewayToFake(s);
    const bad = genaiClient(gateway, "sk-not-a-key");
    await assert.rejects(
      bad.models.generateContent({ model: "m-chat", contents: "hi" }),
      (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.status, 401);
        const body = JSON.parse(error.message);
        assert.equal(body.error.code, 401);
        assert.equal(body.error.status, "UNAUTHENTICATED");
        assert.match(body.error.message, /Invalid API key/);
        return true;
      },
    );
    await assert.rejects(bad.models.list(), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 401);
      assert.match(error.message, /UNAUTHENTICATED/);
      return true;
    });
    const unknown = await fetch(`${gateway.url}/v1beta/models/nope:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": secret, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
    });
    const error = (await unknown.json()).error;
    assert.equal(unknown.status, 503);
    assert.equal(error.status, "UNAVAILABLE");
    assert.equal(error.details[0].reason, "model_not_found");
    const method = await fetch(`${gateway.url}/v1beta/models/m-chat:embedContent`, {
      method: "POST",
      headers: { "x-goog-api-key": secret, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(method.status, 404);
    assert.equal((await method.json()).error.status, "NOT_FOUND");
    const invalid = await fetch(`${gateway.url}/v1/models/m-chat:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": secret, "content-type": "application/json" },
      body: JSON.stringify({ contents: [] }),
    });
    assert.equal(invalid.status, 400);
    const invalidError = (await invalid.json()).error;
    assert.equal(invalidError.status, "INVALID_ARGUMENT");
    assert.match(invalidError.message, /contents/);
  }));

Deno.test("gemini: a key given as ?key= reaches no upstream, log line or ledger row", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await gatewayToFake(s);
    const url =
      `${gateway.url}/v1beta/models/m-messages:streamGenerateContent?alt=sse&key=${secret}`;
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi there" }] }] }),
    });
    assert.equal(response.status, 200);
    const events = await readEvents(response);
    assert.ok(events.every((event) => !event.data.startsWith(":")));
    const refused = await fetch(`${gateway.url}/v1beta/models?key=sk-wrong-${secret.slice(3)}`);
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    // A messages channel keeps its client's query (?beta=true); never a Gemini client's.
    assert.equal(fake.requests[0]?.search, "");
    assert.ok(!JSON.stringify(fake.requests[0]).includes(secret));
    const rows = await gateway.ledger();
    assert.equal(rows.length, 1);
    await gateway.server.settled();
    const written = JSON.stringify({ rows, log: gateway.requestLog });
    assert.ok(!written.includes(secret.slice(3)), written);
    assert.ok(gateway.requestLog.some((line) => line.includes("/v1beta/models/m-messages")));
  }));

Deno.test("gemini: hints a channel cannot honour are dropped, not refused", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await gatewayToFake(s);
    const answer = await genaiClient(gateway, secret).models.generateContent({
      model: "m-chat",
      contents: "hi there",
      config: {
        temperature: 1,
        topP: 0.95,
        topK: 64,
        thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
      },
    });
    assert.equal(answer.text, fakeSays("up"));
    const sent = fake.requests[0]!.body as Record<string, unknown>;
    assert.equal(sent.temperature, 1);
    assert.equal(sent.top_p, 0.95);
    assert.equal(sent.top_k, undefined);
    assert.equal(sent.reasoning_effort, undefined);
  }));

Deno.test("gemini: the entry point off answers 404 in Google's shape; OpenAI's list stays", () =>
  withScope(async (s) => {
    const fake = await s.fake();
    const gateway = await s.gateway(
      `[server]\nentry_points = ["chat"]\n` +
        configWith(channel({ name: "c", protocol: "chat", baseUrl: fake.url, models: ["m"] })),
    );
    const { secret } = await gateway.createKey();
    const off = await fetch(`${gateway.url}/v1beta/models/m:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": secret, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }),
    });
    assert.equal(off.status, 404);
    assert.equal((await off.json()).error.status, "NOT_FOUND");
    const list = await fetch(`${gateway.url}/v1/models`, { headers: { "x-goog-api-key": secret } });
    assert.equal((await list.json()).object, "list");
  }));

Deno.test("gemini: a silent stream gets no keep-alive, and a failure mid-stream is a data: {error} line", () =>
  withScope(async (s) => {
    const clock = new ManualClock();
    const gate = Promise.withResolvers<void>();
    const fake = await s.fake({
      name: "up",
      behaviour: { stall: { after: 1, gate: gate.promise } },
    });
    const gateway = await s.gateway(
      `[server]\nkeepalive_ms = 20\n[timeouts]\nidle = 600000\n` +
        configWith(channel({ name: "c", protocol: "chat", baseUrl: fake.url, models: ["m"] })),
      { clock },
    );
    const { secret } = await gateway.createKey();
    const post = () =>
      fetch(`${gateway.url}/v1beta/models/m:streamGenerateContent?alt=sse`, {
        method: "POST",
        headers: { "x-goog-api-key": secret, "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "one two three" }] }] }),
      });
    const response = await post();
    assert.equal(response.status, 200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("fake:up")) text += (await reader.read()).value ?? "";
    // Ten keep-alive intervals of silence: a chat client would have had ten comments.
    for (let step = 0; step < 10; step++) clock.advance(20);
    gate.resolve();
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += read.value;
    assert.ok(text.split("\n").every((line) => line === "" || line.startsWith("data: ")), text);
    assert.ok(!text.includes(":keep") && !text.includes(": keep"));

    // An upstream that breaks after the answer began: Google's error as a plain data line.
    fake.setBehaviour({ stall: { after: 1, gate: new Promise(() => {}) } });
    const cut = (await post()).body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("fake:up")) seen += (await cut.read()).value ?? "";
    await fake.close();
    for (let read = await cut.read(); !read.done; read = await cut.read()) seen += read.value;
    const broken = await parseEvents(seen);
    const last = JSON.parse(broken.at(-1)!.data);
    assert.equal(last.error.code, 502);
    assert.equal(last.error.status, "UNAVAILABLE");
    assert.equal(broken.at(-1)!.event, undefined);
  }));

Deno.test("gemini: limits and unknown paths answer in Google's shape, a 429 with its RetryInfo", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "up" });
    const gateway = await s.gateway(
      `[groups.default]\nmodels = ["*"]\nrpm = 1\n` +
        channel({ name: "c", protocol: "chat", baseUrl: fake.url, models: ["m"] }),
    );
    const { secret } = await gateway.createKey();
    const ai = genaiClient(gateway, secret, "v1beta");
    assert.equal(
      (await ai.models.generateContent({ model: "m", contents: "hi" })).text,
      fakeSays("up", "hi"),
    );
    await assert.rejects(
      ai.models.generateContent({ model: "m", contents: "hi" }),
      (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.status, 429);
        const body = JSON.parse(error.message).error;
        assert.equal(body.status, "RESOURCE_EXHAUSTED");
        assert.equal(body.details[0].reason, "rate_limit_exceeded");
        assert.match(body.details[1]["@type"], /RetryInfo/);
        return true;
      },
    );
    const unknown = await fetch(`${gateway.url}/v1beta/tunedModels`, {
      headers: { "x-goog-api-key": secret },
    });
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.status, "NOT_FOUND");
  }));
