/**
 * Cache affinity through real fakes: which upstream and which channel key served each turn
 * of a conversation, across failures; `prompt_cache_key` and `cache_control` as the
 * upstreams receive them; affinity and cache reads in the request log and /metrics.
 */
import assert from "node:assert/strict";
import type { FakeUpstream } from "./fakes/upstream.ts";
import { channel, type TestGateway } from "./harness.ts";
import {
  gatewayWithKey,
  messagesBody,
  openaiClient,
  replyText,
  type Scope,
  withScope,
} from "./support.ts";

type Protocol = "chat" | "responses" | "messages";
const PATHS = {
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  messages: "/v1/messages",
};

/** Two fakes of `protocol`, each a channel of model `m` with two keys, at equal priority. */
async function twoUpstreams(
  s: Scope,
  protocol: Protocol,
  options: { weights?: [number, number]; extra?: string } = {},
) {
  const a = await s.fake({ name: "a" });
  const b = await s.fake({ name: "b" });
  const [weightA, weightB] = options.weights ?? [1, 1];
  const started = await gatewayWithKey(
    s,
    channel({
      name: "a",
      protocol,
      baseUrl: a.url,
      models: ["m"],
      keys: ["a0", "a1"],
      weight: weightA,
    }) +
      channel({
        name: "b",
        protocol,
        baseUrl: b.url,
        models: ["m"],
        keys: ["b0", "b1"],
        weight: weightB,
      }),
    options.extra,
  );
  return { a, b, ...started };
}

/** The channel key a fake's request carried (`Authorization: Bearer` or `x-api-key`). */
function keyOf(fake: FakeUpstream, index: number): string {
  const headers = fake.requests[index]!.headers;
  return headers["x-api-key"] ?? headers.authorization!.replace(/^Bearer /, "");
}

/**
 * A conversation in one protocol: each `turn` sends the whole history so far plus a new
 * user message, as chat apps and agents do, and answers which fake and key served it.
 */
function conversation(
  gateway: TestGateway,
  secret: string,
  protocol: Protocol,
  fakes: FakeUpstream[],
  opening: string,
) {
  const history: { role: string; content: string }[] = [];
  return async (text = `${opening}, turn ${history.length / 2 + 1}`): Promise<string> => {
    history.push({ role: "user", content: text });
    const body = protocol === "responses"
      ? { model: "m", input: history }
      : { model: "m", max_tokens: 256, messages: history };
    const response = await gateway.post(PATHS[protocol], secret, body);
    const answer = await response.text();
    assert.equal(response.status, 200, answer);
    history.push({ role: "assistant", content: replyText(JSON.parse(answer)) });
    const fake = fakes.find((candidate) => answerFrom(candidate, answer))!;
    // Its last request with this turn's text (an earlier one may have failed, as a 429).
    const index = fake.requests.findLastIndex((request) =>
      JSON.stringify(request.body).includes(JSON.stringify(text))
    );
    return `${fake.name}/${keyOf(fake, index)}`;
  };
}

function answerFrom(fake: FakeUpstream, answer: string): boolean {
  return replyText(JSON.parse(answer)).startsWith(`fake:${fake.name} says`);
}

for (const protocol of ["chat", "responses", "messages"] as const) {
  Deno.test(`affinity (${protocol}): every turn of a conversation goes to one upstream and key`, () =>
    withScope(async (s) => {
      const { a, b, gateway, secret } = await twoUpstreams(s, protocol);
      const servedBy = new Set<string>();
      for (let c = 0; c < 12; c++) {
        const turn = conversation(gateway, secret, protocol, [a, b], `Conversation ${c}`);
        const first = await turn();
        for (let t = 0; t < 3; t++) assert.equal(await turn(), first, `conversation ${c}`);
        servedBy.add(first);
      }
      // Twelve conversations spread over both upstreams and their keys: one upstream for
      // all is 1 in 2,048; rotation hands each upstream's conversations to its keys in turn.
      assert.ok([...servedBy].some((key) => key.startsWith("a/")), [...servedBy].join());
      assert.ok([...servedBy].some((key) => key.startsWith("b/")), [...servedBy].join());
      assert.ok(servedBy.size >= 3, [...servedBy].join());
    }));
}

Deno.test("affinity: new conversations spread by weight, each staying where it started", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await twoUpstreams(s, "chat", { weights: [3, 1] });
    const firsts: string[] = [];
    for (let sent = 0; sent < 120; sent += 20) {
      const batch = Array.from(
        { length: 20 },
        (_, i) => conversation(gateway, secret, "chat", [a, b], `Topic ${sent + i}`),
      );
      const started = await Promise.all(batch.map((turn) => turn()));
      const again = await Promise.all(batch.map((turn) => turn()));
      assert.deepEqual(again, started);
      firsts.push(...started);
    }
    const onA = firsts.filter((served) => served.startsWith("a/")).length;
    const onB = firsts.length - onA;
    // Expected 90:30; these bounds are several standard deviations away from it.
    assert.ok(onB > 0, `b started ${onB}`);
    assert.ok(onA > 1.5 * onB, `a started ${onA}, b ${onB}`);
  }));

for (const protocol of ["chat", "responses", "messages"] as const) {
  Deno.test(`affinity (${protocol}): a failing upstream moves the conversation, which then stays`, () =>
    withScope(async (s) => {
      const { a, b, gateway, secret } = await twoUpstreams(s, protocol);
      const turn = conversation(gateway, secret, protocol, [a, b], "Plan a trip");
      const first = await turn();
      assert.equal(await turn(), first);
      const [bound, other] = first.startsWith("a/") ? [a, b] : [b, a];
      bound.setBehaviour({ error: { status: 500 } });
      const moved = await turn();
      assert.ok(moved.startsWith(`${other.name}/`), moved);
      bound.setBehaviour({});
      for (let t = 0; t < 3; t++) assert.equal(await turn(), moved, "it stays where it moved");
    }));
}

Deno.test("affinity: a rate-limited key moves the conversation to the channel's other key", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await twoUpstreams(s, "messages");
    const turn = conversation(gateway, secret, "messages", [a, b], "Refactor this");
    const first = await turn();
    const [channel, key] = first.split("/");
    const bound = channel === "a" ? a : b;
    bound.setBehaviour({ error: { status: 429, times: 1 } });
    const moved = await turn();
    const otherKey = `${channel}${key!.endsWith("0") ? "1" : "0"}`;
    assert.equal(moved, `${channel}/${otherKey}`);
    assert.equal(keyOf(bound, bound.requests.length - 2), key, "the 429 came to the bound key");
    for (let t = 0; t < 3; t++) assert.equal(await turn(), moved);
  }));

Deno.test("affinity: cache_affinity = false sends a conversation's turns wherever weight says", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await twoUpstreams(s, "chat", {
      extra: "[routing]\ncache_affinity = false\n",
    });
    const turn = conversation(gateway, secret, "chat", [a, b], "Plan a trip");
    const served = new Set<string>();
    for (let t = 0; t < 16; t++) served.add(await turn());
    // Two upstreams, two keys each, rotating: one key for all sixteen is 1 in 2^15 or less.
    assert.ok(served.size > 1, [...served].join());
  }));

Deno.test("affinity: Claude Code's session sticks whatever the prompt; the log and /metrics say so", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await twoUpstreams(s, "messages", {
      extra: '[server]\nlog_format = "json"\n',
    });
    for (const fake of [a, b]) fake.setBehaviour({ cachedTokens: 3 });
    const session = { metadata: { user_id: "user_ab12_account_cd34_session_ef56" } };
    const servedBy = new Set<string>();
    for (const text of ["Read the file.", "Now fix the bug.", "Run the tests."]) {
      const response = await gateway.post("/v1/messages", secret, messagesBody("m", text, session));
      const answer = await response.text();
      assert.equal(response.status, 200, answer);
      servedBy.add([a, b].find((fake) => answerFrom(fake, answer))!.name);
    }
    assert.equal(servedBy.size, 1);
    const lines = gateway.requestLog.map((line) => JSON.parse(line));
    assert.deepEqual(lines.map((line) => line.affinity), ["none", "hit", "hit"]);
    assert.deepEqual(lines.map((line) => line.cached_tokens), [3, 3, 3]);

    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    assert.match(metrics, /^tollgate_affinity_total\{result="hit"\} 2$/m);
    assert.match(metrics, /^tollgate_affinity_total\{result="none"\} 1$/m);
    assert.match(metrics, /^tollgate_tokens_total\{model="m",kind="cached"\} 9$/m);
  }));

Deno.test("affinity: the text request log says affinity and cached tokens", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await twoUpstreams(s, "chat");
    for (const fake of [a, b]) fake.setBehaviour({ cachedTokens: 2 });
    const turn = conversation(gateway, secret, "chat", [a, b], "Hello");
    await turn();
    await turn();
    assert.match(gateway.requestLog[0]!, / affinity=none .* cached=2 /);
    assert.match(gateway.requestLog[1]!, / affinity=hit .* cached=2 /);
  }));

Deno.test("prompt_cache_key: a responses client's reaches a chat channel (official SDK)", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "chat" });
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "c", protocol: "chat", baseUrl: fake.url, models: ["m"] }),
    );
    const client = openaiClient(gateway, secret);
    await client.responses.create({ model: "m", input: "hi", prompt_cache_key: "codex-7" });
    await client.responses.create({ model: "m", input: "hi" });
    const sent = fake.requests.map((request) => request.body as Record<string, unknown>);
    assert.equal(sent[0]!.prompt_cache_key, "codex-7");
    assert.equal("prompt_cache_key" in sent[1]!, false, "none made up for a chat channel");
  }));

Deno.test("prompt_cache_key: a messages client's conversation reaches a responses channel hashed", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "responses" });
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "r", protocol: "responses", baseUrl: fake.url, models: ["m"] }),
    );
    const session = { metadata: { user_id: "user_alice_session_42" } };
    for (const text of ["one", "two"]) {
      const response = await gateway.post("/v1/messages", secret, messagesBody("m", text, session));
      assert.equal(response.status, 200, await response.text());
    }
    const [first, second] = fake.requests.map((request) =>
      (request.body as Record<string, unknown>).prompt_cache_key as string
    );
    assert.match(first!, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(second, first, "one conversation, one key");
    assert.ok(!first!.includes("alice"));
  }));

Deno.test("cache_control: added toward a messages channel for a chat client, never for a messages client", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "claude" });
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "c", protocol: "messages", baseUrl: fake.url, models: ["m"] }),
    );
    const chat = {
      model: "m",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }],
    };
    assert.equal((await gateway.post(PATHS.chat, secret, chat)).status, 200);
    const own = messagesBody("m", "hi", { system: "Be brief." });
    const response = await gateway.post(PATHS.messages, secret, own);
    assert.equal(response.status, 200, await response.text());
    const [translated, passed] = fake.requests.map((request) =>
      request.body as Record<string, unknown>
    );
    const marker = { type: "ephemeral" };
    assert.deepEqual(translated!.system, [{
      type: "text",
      text: "Be brief.",
      cache_control: marker,
    }]);
    assert.deepEqual(translated!.messages, [
      { role: "user", content: [{ type: "text", text: "hi", cache_control: marker }] },
    ]);
    assert.deepEqual(passed, own, "a messages client's own request passes untouched");
  }));
