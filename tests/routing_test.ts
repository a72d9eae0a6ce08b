/**
 * Routing through real fakes: priority, weight, key rotation, rejected keys, model_map,
 * failover before the first byte and never after it.
 */
import assert from "node:assert/strict";
import type { Behaviour } from "./fakes/upstream.ts";
import { channel, configWith } from "./harness.ts";
import {
  askText,
  channelToFake,
  chatBody,
  closedPort,
  eventJson,
  fakeSays,
  gatewayWithKey,
  messagesBody,
  readEvents,
  replaceConfig,
  responsesBody,
  type Scope,
  withScope,
} from "./support.ts";

const CHAT = "/v1/chat/completions";
const PATHS = { chat: CHAT, responses: "/v1/responses", messages: "/v1/messages" };
const BODIES = { chat: chatBody, responses: responsesBody, messages: messagesBody };

/**
 * Two fakes `a` (priority 10) and `b` (priority 0) serving model `m` on `protocol`; a
 * failed attempt is not retried on its channel (retries have tests of their own).
 */
async function primaryAndBackup(
  s: Scope,
  options: {
    protocol?: "chat" | "responses" | "messages";
    behaviourA?: Behaviour;
    baseUrlA?: string;
    extraA?: string;
  } = {},
) {
  const protocol = options.protocol ?? "chat";
  const a = await s.fake({ name: "a", behaviour: options.behaviourA });
  const b = await s.fake({ name: "b" });
  const { gateway, secret } = await gatewayWithKey(
    s,
    channel({
      name: "a",
      protocol,
      baseUrl: options.baseUrlA ?? a.url,
      models: ["m"],
      priority: 10,
      extra: options.extraA,
    }) + channel({ name: "b", protocol, baseUrl: b.url, models: ["m"], priority: 0 }),
    "[failover]\nretries = 0\n",
  );
  return { a, b, gateway, secret, protocol };
}

Deno.test("routing: the higher priority serves; when it answers 500 the lower one does", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await primaryAndBackup(s);
    for (let i = 0; i < 5; i++) {
      assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("a"));
    }
    assert.equal(a.requests.length, 5);
    assert.equal(b.requests.length, 0);

    a.setBehaviour({ error: { status: 500 } });
    assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("b"));
    assert.equal(a.requests.length, 6);
    assert.equal(b.requests.length, 1);
    const last = (await gateway.ledger()).at(-1);
    assert.equal(last?.channel, "b");
    assert.equal(last?.attempts, 2);
  }));

Deno.test("routing: equal priority shares conversations by weight", () =>
  withScope(async (s) => {
    const heavy = await s.fake({ name: "heavy" });
    const light = await s.fake({ name: "light" });
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "heavy", protocol: "chat", baseUrl: heavy.url, models: ["m"], weight: 3 }) +
        channel({ name: "light", protocol: "chat", baseUrl: light.url, models: ["m"], weight: 1 }),
    );
    const total = 400;
    // Each request another conversation: one conversation's turns stick to one channel.
    for (let sent = 0; sent < total; sent += 20) {
      await Promise.all(
        Array.from(
          { length: 20 },
          (_, i) => askText(gateway, secret, CHAT, chatBody("m", `hi ${sent + i}`)),
        ),
      );
    }
    const [h, l] = [heavy.requests.length, light.requests.length];
    assert.equal(h + l, total);
    // Expected 300:100; these bounds are many standard deviations away from it.
    assert.ok(l > 0, `light served ${l}`);
    assert.ok(h > 1.5 * l, `heavy served ${h}, light ${l}`);
  }));

Deno.test("routing: a channel's keys rotate over conversations", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await channelToFake(s, {
      name: "c",
      protocol: "chat",
      models: ["m"],
      keys: ["key-one", "key-two"],
    });
    for (let i = 0; i < 4; i++) await askText(gateway, secret, CHAT, chatBody("m", `hi ${i}`));
    const used = fake.requests.map((request) => request.headers.authorization);
    assert.equal(used.filter((key) => key === "Bearer key-one").length, 2, used.join());
    assert.equal(used.filter((key) => key === "Bearer key-two").length, 2, used.join());
  }));

Deno.test("routing: a channel key answering 401 leaves rotation until the config is reloaded", () =>
  withScope(async (s) => {
    const fake = await s.fake({ behaviour: { error: { status: 401, times: 1 } } });
    const toml = (comment: string) =>
      `# ${comment}\n` + configWith(channel({
        name: "c",
        protocol: "chat",
        baseUrl: fake.url,
        models: ["m"],
        keys: ["key-one", "key-two"],
      }));
    const gateway = await s.gateway(toml("first"));
    const { secret } = await gateway.createKey();
    // Rotation starts at the first key, which the upstream rejects once: key two serves.
    assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("upstream"));
    const keys = () => fake.requests.map((request) => request.headers.authorization);
    assert.deepEqual(keys(), ["Bearer key-one", "Bearer key-two"]);
    for (let i = 0; i < 5; i++) await askText(gateway, secret, CHAT, chatBody("m"));
    assert.deepEqual(keys().slice(2), Array(5).fill("Bearer key-two"));

    await replaceConfig(gateway, toml("second"));
    await gateway.server.reload();
    const before = fake.requests.length;
    // Other conversations than the first, which stays on key two (cache affinity).
    for (let i = 0; i < 4; i++) await askText(gateway, secret, CHAT, chatBody("m", `hi ${i}`));
    const after = keys().slice(before);
    assert.equal(after.length, 4, "no more failures after the reload");
    assert.ok(after.includes("Bearer key-one"), after.join());
  }));

Deno.test("routing: every channel key rejected is 503 channel:no_available_key", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await channelToFake(s, {
      name: "c",
      protocol: "chat",
      models: ["m"],
      keys: ["key-one", "key-two"],
    }, { behaviour: { error: { status: 403 } } });
    for (let i = 0; i < 2; i++) {
      const response = await gateway.post(CHAT, secret, chatBody("m"));
      const body = JSON.parse(await response.text());
      assert.equal(response.status, 503);
      assert.equal(body.error.code, "channel:no_available_key");
    }
    // Both keys were tried once, then left out: the second request reached no upstream.
    assert.equal(fake.requests.length, 2);
  }));

Deno.test("routing: model_map sends the mapped model upstream", () =>
  withScope(async (s) => {
    const { fake, gateway, secret } = await channelToFake(s, {
      name: "c",
      protocol: "messages",
      models: ["friendly"],
      extra: 'model_map = { friendly = "vendor-model-2025" }',
    });
    const response = await gateway.post("/v1/messages", secret, messagesBody("friendly"));
    assert.equal(response.status, 200, await response.text());
    assert.equal((fake.requests[0]?.body as { model: string }).model, "vendor-model-2025");
    const row = (await gateway.ledger())[0];
    assert.equal(row?.model, "friendly");
    assert.equal(row?.upstream_model, "vendor-model-2025");
  }));

Deno.test("routing: failover on a connect error", () =>
  withScope(async (s) => {
    const { b, gateway, secret } = await primaryAndBackup(s, {
      baseUrlA: `http://127.0.0.1:${closedPort()}/v1`,
    });
    assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("b"));
    assert.equal(b.requests.length, 1);
  }));

for (const status of [500, 502, 503, 429]) {
  Deno.test(`routing: failover on an upstream ${status}`, () =>
    withScope(async (s) => {
      const { a, b, gateway, secret } = await primaryAndBackup(s, {
        behaviourA: { error: { status } },
      });
      assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("b"));
      assert.ok(a.requests.length >= 1);
      assert.equal(b.requests.length, 1);
    }));
}

Deno.test("routing: failover when no headers come within first_byte", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await primaryAndBackup(s, {
      behaviourA: { hang: true },
      extraA: "timeouts = { first_byte = 200 }",
    });
    assert.equal(await askText(gateway, secret, CHAT, chatBody("m")), fakeSays("b"));
    assert.equal(a.requests.length, 1);
    assert.equal(b.requests.length, 1);
  }));

Deno.test("routing: failover when a stream sends headers but no event within first_byte", () =>
  withScope(async (s) => {
    const never = Promise.withResolvers<void>();
    const { a, b, gateway, secret } = await primaryAndBackup(s, {
      behaviourA: { gate: never.promise, gateAfter: 0 },
      extraA: "timeouts = { first_byte = 200 }",
    });
    const response = await gateway.post(CHAT, secret, chatBody("m", "hi there", { stream: true }));
    assert.equal(response.status, 200);
    const text = eventJson(await readEvents(response))
      .map((chunk) => (chunk as { choices: { delta: { content?: string } }[] }).choices[0])
      .map((choice) => choice?.delta.content ?? "").join("");
    assert.equal(text, fakeSays("b"));
    assert.equal(a.requests.length, 1);
    assert.equal(b.requests.length, 1);
  }));

Deno.test("routing: failover when a stream breaks before its first event", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await primaryAndBackup(s, {
      protocol: "messages",
      behaviourA: { breakAfter: 0 },
    });
    const response = await gateway.post(
      PATHS.messages,
      secret,
      messagesBody("m", "hi there", { stream: true }),
    );
    assert.equal(response.status, 200);
    const events = await readEvents(response);
    assert.equal(events.at(-1)?.event, "message_stop");
    const text = eventJson(events)
      .map((event) => (event as { delta?: { text?: string } }).delta?.text ?? "").join("");
    assert.equal(text, fakeSays("b"));
    assert.equal(a.requests.length, 1);
    assert.equal(b.requests.length, 1);
  }));

Deno.test("routing: no failover for a client-fault 400", () =>
  withScope(async (s) => {
    const { a, b, gateway, secret } = await primaryAndBackup(s, {
      behaviourA: { error: { status: 400, message: "Bad field `frob`." } },
    });
    const response = await gateway.post(CHAT, secret, chatBody("m"));
    const body = JSON.parse(await response.text());
    assert.equal(response.status, 400);
    assert.equal(body.error.message, "Bad field `frob`.");
    assert.equal(a.requests.length, 1);
    assert.equal(b.requests.length, 0);
  }));

/** The events of each protocol's stream before its first content (the fakes' preambles). */
const PREAMBLE = { chat: 1, responses: 4, messages: 3 };

for (const protocol of ["chat", "responses", "messages"] as const) {
  Deno.test(`routing: a ${protocol} stream broken after output started ends with an error event, no failover`, () =>
    withScope(async (s) => {
      const breakAfter = PREAMBLE[protocol] + 2;
      const { a, b, gateway, secret } = await primaryAndBackup(s, {
        protocol,
        behaviourA: { breakAfter },
      });
      const response = await gateway.post(
        PATHS[protocol],
        secret,
        BODIES[protocol]("m", "one two three four five six seven", { stream: true }),
      );
      assert.equal(response.status, 200);
      const events = await readEvents(response);
      assert.ok(events.length >= 4, `got ${events.length} events`);
      const last = events.at(-1)!;
      const data = JSON.parse(last.data);
      if (protocol === "chat") {
        assert.equal(last.event, undefined);
        assert.equal(data.error.code, "upstream_error");
        assert.ok(data.error.message);
        assert.ok(events.every((event) => event.data !== "[DONE]"));
      } else if (protocol === "responses") {
        assert.equal(last.event, "error");
        assert.equal(data.type, "error");
        assert.equal(data.code, "upstream_error");
        assert.ok(events.every((event) => event.event !== "response.completed"));
      } else {
        assert.equal(last.event, "error");
        assert.equal(data.type, "error");
        assert.equal(data.error.type, "api_error");
        assert.ok(events.every((event) => event.event !== "message_stop"));
      }
      // The events before the break reached the client first.
      assert.equal(events.filter((event) => event !== last).length, breakAfter);
      assert.equal(a.requests.length, 1);
      assert.equal(b.requests.length, 0);
      const row = (await gateway.ledger())[0];
      assert.equal(row?.status, "failed");
      assert.equal(row?.channel, "a");
    }));
}
