/**
 * Same-protocol relays lose nothing: unknown fields reach the upstream as sent (only
 * `model` mapped, and chat streams asking for usage), protocol headers are forwarded,
 * and the client's stream is the upstream's stream event for event.
 */
import assert from "node:assert/strict";
import { channel, configWith } from "./harness.ts";
import { isUsageChunk, parseEvents, readEvents, type Tap, withScope } from "./support.ts";

/** Fields no schema of tollgate knows, nested several levels, with every JSON type. */
const UNKNOWN_FIELDS = {
  prompt_cache_key: "cache-key-7",
  client_metadata: {
    session: { id: "s-1", tags: ["a", "b"], depth: { deeper: { deepest: [1, null, true] } } },
    ratio: 0.125,
    flag: false,
    nothing: null,
  },
  future_feature: { enabled: true, params: [{ k: "v" }, [1, [2, [3]]], "", 0, -1.5e-7] },
  unicode: 'héllo ✓ 🎉 \u2028 "quoted" \\ back',
};

const CHAT_BODY = {
  model: "client-model",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "developer", content: [{ type: "text", text: "dev note" }] },
    {
      role: "user",
      content: [
        { type: "text", text: "hello there" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } },
      ],
      name: "u1",
    },
  ],
  tools: [
    { type: "web_search", filters: { allowed_domains: ["example.com"] } },
    {
      type: "custom",
      custom: {
        name: "grep",
        description: "search files",
        format: { type: "grammar", grammar: { syntax: "lark", definition: "start: /.+/" } },
      },
    },
    {
      type: "function",
      function: {
        name: "lookup",
        parameters: { type: "object", properties: { ids: { type: "array" } } },
        strict: true,
      },
    },
  ],
  tool_choice: "auto",
  context_management: { compaction: { threshold: 1000 } },
  output_config: { effort: "low" },
  temperature: 0.2,
  max_completion_tokens: 200,
  ...UNKNOWN_FIELDS,
};

const RESPONSES_BODY = {
  model: "client-model",
  input: [
    { role: "system", content: "Be brief." },
    { type: "message", role: "user", content: [{ type: "input_text", text: "hello there" }] },
  ],
  tools: [
    { type: "web_search", search_context_size: "low", user_location: { type: "approximate" } },
    {
      type: "custom",
      name: "grep",
      format: { type: "grammar", syntax: "regex", definition: ".+" },
    },
  ],
  context_management: [{ type: "compaction", compact_threshold: 1000 }],
  output_config: { effort: "low", nested: { x: [1, 2] } },
  include: ["reasoning.encrypted_content"],
  reasoning: { effort: "low", summary: "auto" },
  text: { verbosity: "low" },
  store: false,
  ...UNKNOWN_FIELDS,
};

const MESSAGES_BODY = {
  model: "client-model",
  max_tokens: 200,
  system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral", ttl: "1h" } }],
  messages: [
    { role: "system", content: "An inline system item." },
    { role: "user", content: [{ type: "text", text: "hello there" }] },
  ],
  tools: [
    { type: "web_search_20250305", name: "web_search", max_uses: 2 },
    { type: "web_search", name: "web_search_next" },
    { type: "custom", name: "lookup", input_schema: { type: "object", properties: {} } },
  ],
  context_management: {
    edits: [{ type: "clear_tool_uses_20250919", trigger: { type: "input_tokens", value: 30000 } }],
  },
  output_config: { effort: "medium", format: { type: "json_schema", schema: { type: "object" } } },
  thinking: { type: "enabled", budget_tokens: 1024 },
  metadata: { user_id: "u-1" },
  ...UNKNOWN_FIELDS,
};

const PATHS = {
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  messages: "/v1/messages",
};
const BODIES = { chat: CHAT_BODY, responses: RESPONSES_BODY, messages: MESSAGES_BODY };

/** One fake behind a tap, a channel of `protocol` mapping client-model → upstream-model. */
async function relayOf(
  s: Parameters<Parameters<typeof withScope>[0]>[0],
  protocol: "chat" | "responses" | "messages",
) {
  const fake = await s.fake({ name: "up" });
  const tap: Tap = await s.tap(fake);
  const gateway = await s.gateway(configWith(channel({
    name: "up",
    protocol,
    baseUrl: tap.url,
    models: ["client-model"],
    keys: ["sk-channel"],
    extra: 'model_map = { client-model = "upstream-model" }',
  })));
  const { secret } = await gateway.createKey();
  return { fake, tap, gateway, secret };
}

for (const protocol of ["chat", "responses", "messages"] as const) {
  for (const stream of [false, true]) {
    Deno.test(`passthrough: ${protocol} ${stream ? "stream" : "non-stream"} body arrives as sent`, () =>
      withScope(async (s) => {
        const { fake, gateway, secret } = await relayOf(s, protocol);
        const body = stream ? { ...BODIES[protocol], stream: true } : BODIES[protocol];
        const response = await gateway.post(PATHS[protocol], secret, body);
        const text = await response.text();
        assert.equal(response.status, 200, text);
        assert.equal(fake.requests.length, 1);
        const expected: Record<string, unknown> = { ...body, model: "upstream-model" };
        if (protocol === "chat" && stream) expected.stream_options = { include_usage: true };
        assert.deepEqual(fake.requests[0]?.body, expected);
      }));
  }
}

Deno.test("passthrough: chat keeps the client's other stream_options beside include_usage", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await relayOf(s, "chat");
    const body = {
      ...CHAT_BODY,
      stream: true,
      stream_options: { include_obfuscation: false, future: { x: 1 } },
    };
    const response = await gateway.post(PATHS.chat, secret, body);
    await response.body?.cancel();
    assert.equal(response.status, 200);
    assert.deepEqual(fake.requests[0]?.body, {
      ...body,
      model: "upstream-model",
      stream_options: { include_obfuscation: false, future: { x: 1 }, include_usage: true },
    });
  }));

Deno.test("passthrough: a channel's headers reach the upstream and replace defaults in any case", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "up" });
    const gateway = await s.gateway(configWith(channel({
      name: "up",
      protocol: "chat",
      baseUrl: fake.url,
      models: ["client-model"],
      keys: ["sk-channel"],
      extra: 'headers = { "X-Team" = "blue", "Accept" = "application/x-ndjson" }',
    })));
    const { secret } = await gateway.createKey();
    const response = await gateway.post(PATHS.chat, secret, CHAT_BODY);
    assert.equal(response.status, 200, await response.text());
    const sent = fake.requests[0]?.headers;
    assert.equal(sent?.["x-team"], "blue");
    // One value, the channel's: not the default joined with it.
    assert.equal(sent?.accept, "application/x-ndjson");
    assert.equal(sent?.authorization, "Bearer sk-channel");
  }));

Deno.test("passthrough: anthropic-version and anthropic-beta are forwarded, credentials are not", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await relayOf(s, "messages");
    const betas = "context-management-2025-06-27,interleaved-thinking-2025-05-14";
    const first = await gateway.post(PATHS.messages, secret, MESSAGES_BODY, {
      "anthropic-version": "2099-12-31",
      "anthropic-beta": betas,
    });
    assert.equal(first.status, 200, await first.text());
    const headers = new Headers([
      ["authorization", `Bearer ${secret}`],
      ["content-type", "application/json"],
      ["anthropic-version", "2023-01-01"],
      ["anthropic-beta", "one-2025-01-01"],
      ["anthropic-beta", "two-2025-02-02"],
    ]);
    const second = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "client-model", messages: MESSAGES_BODY.messages }),
    });
    assert.equal(second.status, 200, await second.text());

    // A client that sends no version gets the upstream's oldest stable one.
    const third = await gateway.post(PATHS.messages, secret, MESSAGES_BODY);
    assert.equal(third.status, 200, await third.text());
    assert.equal(fake.requests[2]?.headers["anthropic-version"], "2023-06-01");

    const [create, count] = fake.requests;
    assert.equal(create?.headers["anthropic-version"], "2099-12-31");
    assert.equal(create?.headers["anthropic-beta"], betas);
    assert.equal(count?.path, "/v1/messages/count_tokens");
    assert.equal(count?.headers["anthropic-version"], "2023-01-01");
    const listed = count?.headers["anthropic-beta"]?.split(",").map((beta) => beta.trim());
    assert.deepEqual(listed, ["one-2025-01-01", "two-2025-02-02"]);
    for (const request of [create, count]) {
      assert.equal(request?.headers["x-api-key"], "sk-channel");
      assert.equal(request?.headers.authorization, undefined);
    }
  }));

Deno.test("passthrough: a chat channel gets the channel key as Bearer, not the client's key", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await relayOf(s, "chat");
    const response = await gateway.post(PATHS.chat, secret, CHAT_BODY, { "x-api-key": secret });
    assert.equal(response.status, 200, await response.text());
    assert.equal(fake.requests[0]?.headers.authorization, "Bearer sk-channel");
    assert.equal(fake.requests[0]?.headers["x-api-key"], undefined);
  }));

for (const protocol of ["messages", "responses"] as const) {
  Deno.test(`passthrough: a ${protocol} stream reaches the client event for event`, () =>
    withScope(async (s) => {
      const { tap, gateway, secret } = await relayOf(s, protocol);
      const response = await gateway.post(PATHS[protocol], secret, {
        ...BODIES[protocol],
        stream: true,
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
      assert.match(response.headers.get("x-request-id") ?? "", /^[A-Za-z0-9._:-]{1,128}$/);
      const received = await readEvents(response);
      assert.equal(tap.exchanges.length, 1);
      const sent = await parseEvents(await tap.exchanges[0]!.body);
      assert.ok(sent.length > 5, `the upstream sent ${sent.length} events`);
      assert.ok(sent.every((event) => event.event !== undefined), "named events");
      assert.deepEqual(received, sent);
    }));
}

Deno.test("passthrough: a chat stream reaches the client whole except the usage chunk it did not ask for", () =>
  withScope(async (s) => {
    const { tap, gateway, secret } = await relayOf(s, "chat");
    const body = JSON.stringify({ ...CHAT_BODY, stream: true });
    const response = await gateway.post(PATHS.chat, secret, body);
    assert.equal(response.status, 200);
    const received = await readEvents(response);
    // The client's bytes, its model mapped and the request for usage written first.
    assert.equal(
      tap.exchanges[0]!.request,
      '{"stream_options":{"include_usage":true},' +
        body.slice(1).replace('"model":"client-model"', '"model":"upstream-model"'),
    );
    const sent = await parseEvents(await tap.exchanges[0]!.body);
    assert.equal(sent.filter(isUsageChunk).length, 1, "the upstream reported usage");
    assert.equal(sent.at(-1)?.data, "[DONE]");
    assert.deepEqual(received, sent.filter((event) => !isUsageChunk(event)));
  }));

Deno.test("passthrough: a chat stream that asked for usage reaches the client whole", () =>
  withScope(async (s) => {
    const { tap, gateway, secret } = await relayOf(s, "chat");
    const response = await gateway.post(PATHS.chat, secret, {
      ...CHAT_BODY,
      stream: true,
      stream_options: { include_usage: true },
    });
    const received = await readEvents(response);
    const sent = await parseEvents(await tap.exchanges[0]!.body);
    assert.equal(sent.filter(isUsageChunk).length, 1);
    assert.deepEqual(received, sent);
  }));

Deno.test("passthrough: a non-stream body reaches the client byte for byte", () =>
  withScope(async (s) => {
    for (const protocol of ["chat", "responses", "messages"] as const) {
      const { tap, gateway, secret } = await relayOf(s, protocol);
      const response = await gateway.post(PATHS[protocol], secret, BODIES[protocol]);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), await tap.exchanges[0]!.body);
    }
  }));

Deno.test("passthrough: a whole answer reaches the client as the upstream's bytes, even ones text would change", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await relayOf(s, "chat");
    const utf8 = (text: string) => new TextEncoder().encode(text);
    // A byte-order mark, and a lone 0xE9 (Latin-1 "é") that UTF-8 text would replace.
    const sent = new Uint8Array([
      ...[0xef, 0xbb, 0xbf],
      ...utf8(
        '{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",' +
          '"choices":[{"index":0,"message":{"role":"assistant","content":"caf',
      ),
      0xe9,
      ...utf8(
        '"},"finish_reason":"stop"}],' +
          '"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
      ),
    ]);
    fake.setBehaviour({ transcript: { body: sent } });
    const response = await gateway.post(PATHS.chat, secret, BODIES.chat);
    assert.equal(response.status, 200);
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), sent);
  }));

Deno.test("passthrough: a stream reaches the client byte for byte, comments and framing included", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await relayOf(s, "messages");
    // What OpenRouter-style proxies send: comment lines, `data:` without a space, an `id:`.
    const sse = ": PROCESSING\n\n" +
      'event: message_start\ndata:{"type":"message_start","message":{"id":"msg_1","type":"message",' +
      '"role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,' +
      '"usage":{"input_tokens":3,"output_tokens":1}}}\nid: 1\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,' +
      '"content_block":{"type":"text","text":""}}\n\n' +
      ": still working\n\n" +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,' +
      '"delta":{"type":"text_delta","text":"hi"}}\n\n' +
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn",' +
      '"stop_sequence":null},"usage":{"output_tokens":2}}\n\n' +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
    fake.setBehaviour({ transcript: { sse } });
    const response = await gateway.post(PATHS.messages, secret, {
      ...BODIES.messages,
      stream: true,
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), sse);
  }));

Deno.test("passthrough: a body goes upstream byte for byte, a mapped model's with only the model replaced", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "up" });
    const tap = await s.tap(fake);
    const gateway = await s.gateway(configWith(channel({
      name: "up",
      protocol: "messages",
      baseUrl: tap.url,
      models: ["same-model", "client-model"],
      keys: ["sk-channel"],
      extra: 'model_map = { client-model = "upstream-model" }',
    })));
    const { secret } = await gateway.createKey();
    // Spacing, key order, escapes and a number past a double's precision, none of which a
    // re-serialization would keep.
    const sent = (model: string) =>
      `{ "max_tokens":64,"model" : "${model}",\n "messages":[{"role":"user","content":"caf\\u00e9 \\/ ok"}],"x-extra":{"b":1,"a":[],"seed":12345678901234567891} }`;
    const same = await gateway.post(PATHS.messages, secret, sent("same-model"));
    assert.equal(same.status, 200, await same.text());
    assert.equal(tap.exchanges[0]?.request, sent("same-model"));
    const mapped = await gateway.post(PATHS.messages, secret, sent("client-model"));
    assert.equal(mapped.status, 200, await mapped.text());
    assert.equal(tap.exchanges[1]?.request, sent("upstream-model"));
  }));
