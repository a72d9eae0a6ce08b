/**
 * The error catalogue of design.md, one test per row this issue touches: status, code,
 * the exact body shape of the path (OpenAI or messages), and `x-request-id` equal to
 * the body's request id.
 */
import assert from "node:assert/strict";
import { setAccountEnabled } from "../src/db/accounts.ts";
import { revokeKey, setKeyEnabled } from "../src/db/keys.ts";
import { channel, configWith, type TestGateway } from "./harness.ts";
import {
  assertMessagesError,
  assertOpenAiError,
  chatBody,
  closedPort,
  type GatewayWithKey,
  gatewayWithKey,
  messagesBody,
  responsesBody,
  type Scope,
  withScope,
} from "./support.ts";

const CHAT = "/v1/chat/completions";
const MESSAGES = "/v1/messages";

const ECHO_CHANNEL = channel({ name: "echo", protocol: "echo", models: ["echo"] });

/** A gateway with an echo model `echo` and, optionally, more channels and config. */
function echoGateway(s: Scope, more = "", extra = ""): Promise<TestGateway> {
  return s.gateway(configWith(ECHO_CHANNEL + more, extra));
}

/** `echoGateway` and a key (of a fresh unlimited account) for it. */
function echoGatewayWithKey(s: Scope, more = "", extra = ""): Promise<GatewayWithKey> {
  return gatewayWithKey(s, ECHO_CHANNEL + more, extra);
}

function postNoKey(gateway: TestGateway, path: string, body: unknown, headers = {}) {
  return fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

// --- authentication ------------------------------------------------------------------

Deno.test("errors: missing key is 401 invalid_request in both shapes", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const openai = await assertOpenAiError(
      await postNoKey(gateway, CHAT, chatBody("echo")),
      401,
      "invalid_request",
    );
    assert.match(openai.error.message, /API key/);
    const messages = await assertMessagesError(
      await postNoKey(gateway, MESSAGES, messagesBody("echo")),
      401,
      "invalid_request",
      "authentication_error",
    );
    assert.match(messages.error.message, /x-api-key/);
    const models = await fetch(`${gateway.baseUrl}/models`);
    await assertOpenAiError(models, 401, "invalid_request");
  }));

Deno.test("errors: unknown key is 401 authentication_error", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const fake = "sk-" + "x".repeat(48);
    const body = await assertOpenAiError(
      await gateway.post(CHAT, fake, chatBody("echo")),
      401,
      "authentication_error",
    );
    assert.match(body.error.message, /no such key/i);
    await assertMessagesError(
      await postNoKey(gateway, MESSAGES, messagesBody("echo"), { "x-api-key": fake }),
      401,
      "authentication_error",
      "authentication_error",
    );
  }));

Deno.test("errors: expired key is 401 authentication_error saying it expired", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const { secret } = await gateway.createKey({ expiresAt: Date.now() - 60_000 });
    const body = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("echo")),
      401,
      "authentication_error",
    );
    assert.match(body.error.message, /expired/);
  }));

Deno.test("errors: disabled key is 401 authentication_error saying it is disabled", () =>
  withScope(async (s) => {
    const { gateway, id, secret } = await echoGatewayWithKey(s);
    assert.equal(await setKeyEnabled(gateway.db.kysely, id, false), "updated");
    const body = await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("echo")),
      401,
      "authentication_error",
      "authentication_error",
    );
    assert.match(body.error.message, /disabled/);
  }));

Deno.test("errors: revoked key is 401 authentication_error saying it is revoked", () =>
  withScope(async (s) => {
    const { gateway, id, secret } = await echoGatewayWithKey(s);
    assert.equal(await revokeKey(gateway.db.kysely, id), true);
    const body = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("echo")),
      401,
      "authentication_error",
    );
    assert.match(body.error.message, /revoked/);
  }));

Deno.test("errors: disabled account is 403 access_denied", () =>
  withScope(async (s) => {
    const { gateway, secret, account } = await echoGatewayWithKey(s);
    assert.equal(await setAccountEnabled(gateway.db.kysely, account, false), true);
    const body = await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("echo")),
      403,
      "access_denied",
      "permission_error",
    );
    assert.match(body.error.message, /account/);
    assert.match(body.error.message, /disabled/);
  }));

Deno.test("errors: a key whose group is not in the config is 403 access_denied", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const { secret } = await gateway.createKey({ group: "ghosts" });
    const body = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("echo")),
      403,
      "access_denied",
    );
    assert.match(body.error.message, /ghosts/);
  }));

// The spec's 403 triage: GET /v1/models fails alike for account status and group.
Deno.test("errors: GET /v1/models is 403 for a disabled account and an unknown group", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const disabled = await gateway.createKey();
    await setAccountEnabled(gateway.db.kysely, disabled.account, false);
    const ghost = await gateway.createKey({ group: "ghosts" });
    for (const secret of [disabled.secret, ghost.secret]) {
      const response = await fetch(`${gateway.baseUrl}/models`, {
        headers: { authorization: `Bearer ${secret}` },
      });
      await assertOpenAiError(response, 403, "access_denied");
    }
  }));

// --- IP allowlists ---------------------------------------------------------------------

Deno.test("errors: IPv4 allowlist without the client's address is 403; with it, 200", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const other = await gateway.createKey({ allowIps: ["10.0.0.0/8"] });
    const body = await assertOpenAiError(
      await gateway.post(CHAT, other.secret, chatBody("echo")),
      403,
      "access_denied",
    );
    assert.match(body.error.message, /10\.0\.0\.0\/8/);
    const local = await gateway.createKey({ allowIps: ["10.0.0.0/8", "127.0.0.0/8"] });
    const ok = await gateway.post(CHAT, local.secret, chatBody("echo"));
    assert.equal(ok.status, 200, await ok.text());
  }));

Deno.test("errors: IPv6 allowlist does not admit an IPv4 client", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const { secret } = await gateway.createKey({ allowIps: ["::1/128", "2001:db8::/32"] });
    await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("echo")),
      403,
      "access_denied",
      "permission_error",
    );
  }));

Deno.test("errors: an IPv4-mapped IPv6 allowlist entry admits the IPv4 client", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const { secret } = await gateway.createKey({ allowIps: ["::ffff:127.0.0.1/128"] });
    const response = await gateway.post(CHAT, secret, chatBody("echo"));
    assert.equal(response.status, 200, await response.text());
  }));

Deno.test("errors: a trusted proxy's X-Forwarded-For decides the client IP (IPv4 and IPv6)", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s, "", '[server]\ntrusted_proxies = ["127.0.0.1/32"]\n');
    const v4 = await gateway.createKey({ allowIps: ["203.0.113.0/24"] });
    const v6 = await gateway.createKey({ allowIps: ["2001:db8::/32"] });
    const post = (secret: string, forwardedFor?: string) =>
      gateway.post(
        CHAT,
        secret,
        chatBody("echo"),
        forwardedFor ? { "x-forwarded-for": forwardedFor } : {},
      );

    let response = await post(v4.secret, "203.0.113.7");
    assert.equal(response.status, 200, await response.text());
    response = await post(v4.secret, "198.51.100.1, 203.0.113.9");
    assert.equal(response.status, 200, await response.text());
    await assertOpenAiError(await post(v4.secret, "198.51.100.1"), 403, "access_denied");
    await assertOpenAiError(await post(v4.secret), 403, "access_denied");

    response = await post(v6.secret, "2001:db8::5");
    assert.equal(response.status, 200, await response.text());
    await assertOpenAiError(await post(v6.secret, "2001:db9::5"), 403, "access_denied");
  }));

Deno.test("errors: an untrusted peer's X-Forwarded-For is ignored", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s);
    const spoofer = await gateway.createKey({ allowIps: ["203.0.113.0/24"] });
    await assertOpenAiError(
      await gateway.post(CHAT, spoofer.secret, chatBody("echo"), {
        "x-forwarded-for": "203.0.113.7",
      }),
      403,
      "access_denied",
    );
    const local = await gateway.createKey({ allowIps: ["127.0.0.1/32"] });
    const response = await gateway.post(CHAT, local.secret, chatBody("echo"), {
      "x-forwarded-for": "198.51.100.1",
    });
    assert.equal(response.status, 200, await response.text());
  }));

// --- models and routing ------------------------------------------------------------------

Deno.test("errors: a model outside the key's restriction is 403 access_denied", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(
      s,
      channel({ name: "echo2", protocol: "echo", models: ["other"] }),
    );
    const { secret } = await gateway.createKey({ models: ["echo"] });
    const body = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("other")),
      403,
      "access_denied",
    );
    assert.match(body.error.message, /other/);
    assert.equal(body.error.param, "model");
  }));

Deno.test("errors: an unknown model is 503 model_not_found", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGatewayWithKey(s);
    const body = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("no-such-model")),
      503,
      "model_not_found",
    );
    assert.match(body.error.message, /no-such-model/);
    await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("no-such-model")),
      503,
      "model_not_found",
      "not_found_error",
    );
  }));

Deno.test("errors: a field another protocol cannot honour is 400 convert_request_failed", () =>
  withScope(async (s) => {
    const fake = await s.fake();
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      channel({ name: "resp", protocol: "responses", baseUrl: fake.url, models: ["r-only"] }) +
        channel({ name: "chat", protocol: "chat", baseUrl: fake.url, models: ["c-only"] }),
    );
    const refused = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("r-only", "hi", { n: 2 })),
      400,
      "convert_request_failed",
    );
    assert.equal(refused.error.param, "n");
    // A previous response tollgate never stored is the client's 400 on any channel.
    const previous = await assertOpenAiError(
      await gateway.post(
        "/v1/responses",
        secret,
        responsesBody("c-only", "hi", {
          previous_response_id: "resp_123",
        }),
      ),
      400,
      "previous_response_not_found",
    );
    assert.equal(previous.error.param, "previous_response_id");
    assert.equal(fake.requests.length, 0, "nothing went upstream");
    // The same model through a protocol its channel can express works.
    const ok = await gateway.post(CHAT, secret, chatBody("r-only"));
    assert.equal(ok.status, 200, await ok.text());
  }));

// --- paths -------------------------------------------------------------------------------

Deno.test("errors: an entry point not exposed is 404 in its own shape", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      "",
      '[server]\nentry_points = ["chat"]\n',
    );
    const body = await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("echo")),
      404,
      "not_found",
      "not_found_error",
    );
    assert.match(body.error.message, /messages/);
    await assertOpenAiError(
      await gateway.post("/v1/responses", secret, responsesBody("echo")),
      404,
      "not_found",
    );
    const ok = await gateway.post(CHAT, secret, chatBody("echo"));
    assert.equal(ok.status, 200, await ok.text());
  }));

Deno.test("errors: unknown paths are 404 and diagnose the base-URL mistake", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGatewayWithKey(s);
    const cases: { path: string; fix: RegExp }[] = [
      { path: "/v1/v1/chat/completions", fix: /repeats "\/v1".*already ends in "\/v1"/ },
      { path: "//v1/chat/completions", fix: /Remove the trailing slash/ },
      { path: "/chat/completions", fix: /missing "\/v1".*with "\/v1" at the end/ },
      { path: "/v1/responses/responses", fix: /repeats "\/responses".*root plus "\/v1"/ },
    ];
    for (const { path, fix } of cases) {
      const body = await assertOpenAiError(
        await gateway.post(path, secret, chatBody("echo")),
        404,
        "not_found",
      );
      assert.match(body.error.message, fix, path);
    }
    const messages = await assertMessagesError(
      await gateway.post("/v1/v1/messages", secret, messagesBody("echo")),
      404,
      "not_found",
      "not_found_error",
    );
    assert.match(messages.error.message, /without "\/v1"/);
    const slash = await assertMessagesError(
      await gateway.post("//v1/messages", secret, messagesBody("echo")),
      404,
      "not_found",
      "not_found_error",
    );
    assert.match(slash.error.message, /Remove the trailing slash/);
  }));

// A messages client (Anthropic SDK, Claude Code) appends /v1/messages itself, so a base URL
// set to the endpoint (…/v1/messages) repeats it: the same repeated-endpoint mistake.
Deno.test("errors: a messages endpoint repeated by the base URL is diagnosed", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGatewayWithKey(s);
    const body = await assertMessagesError(
      await gateway.post("/v1/messages/v1/messages", secret, messagesBody("echo")),
      404,
      "not_found",
      "not_found_error",
    );
    assert.match(body.error.message, /repeats/);
    assert.match(body.error.message, /base URL/);
  }));

// --- request bodies ----------------------------------------------------------------------

Deno.test("errors: a body that is not JSON is 400 bad_request_body", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGatewayWithKey(s);
    await assertOpenAiError(
      await gateway.post(CHAT, secret, '{"model": "echo", "messages": ['),
      400,
      "bad_request_body",
    );
    await assertMessagesError(
      await gateway.post(MESSAGES, secret, "not json at all"),
      400,
      "bad_request_body",
      "invalid_request_error",
    );
  }));

Deno.test("errors: an invalid field is 400 invalid_request naming the field", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGatewayWithKey(s);
    const { max_tokens: _, ...noMaxTokens } = messagesBody("echo");
    const messages = await assertMessagesError(
      await gateway.post(MESSAGES, secret, noMaxTokens),
      400,
      "invalid_request",
      "invalid_request_error",
    );
    assert.match(messages.error.message, /max_tokens/);

    const chat = await assertOpenAiError(
      await gateway.post(CHAT, secret, { model: "echo", messages: "hello" }),
      400,
      "invalid_request",
    );
    assert.equal(chat.error.param, "messages");
    assert.match(chat.error.message, /messages/);

    const stream = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("echo", "hi", { stream: "yes" })),
      400,
      "invalid_request",
    );
    assert.equal(stream.error.param, "stream");
  }));

Deno.test("errors: a body over max_body_bytes is 413 request_too_large", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      "",
      "[server]\nmax_body_bytes = 1000\n",
    );
    const big = chatBody("echo", "x".repeat(2000));
    const body = await assertOpenAiError(
      await gateway.post(CHAT, secret, big),
      413,
      "request_too_large",
    );
    assert.match(body.error.message, /1000/);
    await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("echo", "x".repeat(2000))),
      413,
      "request_too_large",
      "request_too_large",
    );
    // Without a Content-Length (chunked), the limit holds while reading.
    const bytes = new TextEncoder().encode(JSON.stringify(big));
    const chunked = await fetch(`${gateway.url}${CHAT}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(bytes.slice(0, 600));
          controller.enqueue(bytes.slice(600));
          controller.close();
        },
      }),
    });
    await assertOpenAiError(chunked, 413, "request_too_large");
    const small = await gateway.post(CHAT, secret, chatBody("echo"));
    assert.equal(small.status, 200, await small.text());
  }));

Deno.test("errors: an oversized body is 413 before the key is even checked", () =>
  withScope(async (s) => {
    const gateway = await echoGateway(s, "", "[server]\nmax_body_bytes = 1000\n");
    await assertOpenAiError(
      await postNoKey(gateway, CHAT, chatBody("echo", "x".repeat(2000))),
      413,
      "request_too_large",
    );
  }));

// --- upstream failures -------------------------------------------------------------------

Deno.test("errors: an upstream 400 is relayed with its status and message", () =>
  withScope(async (s) => {
    const message = "Unsupported parameter: 'frobnicate' is not supported with this model.";
    const fake = await s.fake({ behaviour: { error: { status: 400, message } } });
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      channel({ name: "chat", protocol: "chat", baseUrl: fake.url, models: ["m"] }) +
        channel({ name: "msg", protocol: "messages", baseUrl: fake.url, models: ["c"] }),
    );
    const chat = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("m")),
      400,
      "invalid_request",
    );
    assert.equal(chat.error.message, message);
    const messages = await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("c")),
      400,
      "invalid_request",
      "invalid_request_error",
    );
    assert.equal(messages.error.message, message);
  }));

Deno.test("errors: an upstream 404 and a 400 to a stream request are relayed as JSON errors", () =>
  withScope(async (s) => {
    const fake = await s.fake({
      behaviour: { error: { status: 404, message: "The model `vendor-x` does not exist." } },
    });
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      channel({ name: "resp", protocol: "responses", baseUrl: fake.url, models: ["r"] }) +
        channel({ name: "msg", protocol: "messages", baseUrl: fake.url, models: ["c"] }),
    );
    const notFound = await assertOpenAiError(
      await gateway.post("/v1/responses", secret, responsesBody("r")),
      404,
      "not_found",
    );
    assert.equal(notFound.error.message, "The model `vendor-x` does not exist.");

    fake.setBehaviour({ error: { status: 400, message: "max_tokens: too large" } });
    const streamed = await gateway.post(
      MESSAGES,
      secret,
      messagesBody("c", "hi", { stream: true }),
    );
    const body = await assertMessagesError(
      streamed,
      400,
      "invalid_request",
      "invalid_request_error",
    );
    assert.equal(body.error.message, "max_tokens: too large");
  }));

Deno.test("errors: an upstream 500 on every attempt is 502 bad_response_status_code", () =>
  withScope(async (s) => {
    const fake = await s.fake({ behaviour: { error: { status: 500 } } });
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      channel({
        name: "chat",
        protocol: "chat",
        baseUrl: fake.url,
        models: ["m"],
        keys: ["k1", "k2"],
      }),
    );
    await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("m")),
      502,
      "bad_response_status_code",
    );
    assert.ok(fake.requests.length >= 1);
  }));

Deno.test("errors: an unreachable upstream is 502 upstream_error", () =>
  withScope(async (s) => {
    const url = `http://127.0.0.1:${closedPort()}/v1`;
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      channel({ name: "chat", protocol: "chat", baseUrl: url, models: ["m"] }) +
        channel({ name: "msg", protocol: "messages", baseUrl: url, models: ["c"] }),
    );
    await assertOpenAiError(await gateway.post(CHAT, secret, chatBody("m")), 502, "upstream_error");
    await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("c")),
      502,
      "upstream_error",
      "api_error",
    );
  }));

Deno.test("errors: an upstream that sends no headers within first_byte is 504 upstream_timeout", () =>
  withScope(async (s) => {
    const fake = await s.fake({ behaviour: { hang: true } });
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      channel({
        name: "slow",
        protocol: "chat",
        baseUrl: fake.url,
        models: ["m"],
        extra: "timeouts = { first_byte = 200 }",
      }),
      "[failover]\nretries = 0\n",
    );
    await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("m")),
      504,
      "upstream_timeout",
    );
    assert.equal(fake.requests.length, 1);
  }));

// A channel's `timeouts` overrides only the fields it names; the rest come from [timeouts].
// The message names the deadline that fired, so no clock is read: a wrong merge waits for
// the channel's `total` (2 s) and says so instead.
Deno.test("errors: a channel overriding one timeout keeps the global first_byte", () =>
  withScope(async (s) => {
    const fake = await s.fake({ behaviour: { hang: true } });
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      channel({
        name: "slow",
        protocol: "chat",
        baseUrl: fake.url,
        models: ["m"],
        extra: "timeouts = { total = 2_000 }",
      }),
      "[timeouts]\nfirst_byte = 200\n",
    );
    const body = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("m")),
      504,
      "upstream_timeout",
    );
    assert.match(body.error.message, /no response headers within 200 ms/);
  }));

Deno.test("errors: an upstream 529 on messages is 529 overloaded_error", () =>
  withScope(async (s) => {
    const fake = await s.fake({ behaviour: { error: { status: 529 } } });
    const { gateway, secret } = await echoGatewayWithKey(
      s,
      channel({ name: "msg", protocol: "messages", baseUrl: fake.url, models: ["c"] }),
    );
    await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("c")),
      529,
      "overloaded_error",
      "overloaded_error",
    );
  }));

// --- request ids -------------------------------------------------------------------------

Deno.test("errors: a well-formed incoming x-request-id is kept, a malformed one replaced", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGatewayWithKey(s);
    const mine = "client-req_01.A:b-" + "z".repeat(100);
    const kept = await assertOpenAiError(
      await gateway.post(CHAT, secret, chatBody("nope"), { "x-request-id": mine }),
      503,
      "model_not_found",
    );
    assert.equal(kept.error.request_id, mine);
    const keptMessages = await assertMessagesError(
      await gateway.post(MESSAGES, secret, messagesBody("nope"), { "x-request-id": mine }),
      503,
      "model_not_found",
      "not_found_error",
    );
    assert.equal(keptMessages.request_id, mine);

    for (const bad of ["has spaces in it", "x".repeat(129), "semi;colon", "<script>"]) {
      const replaced = await assertOpenAiError(
        await gateway.post(CHAT, secret, chatBody("nope"), { "x-request-id": bad }),
        503,
        "model_not_found",
      );
      assert.notEqual(replaced.error.request_id, bad);
      assert.match(replaced.error.request_id, /^[A-Za-z0-9._:-]{1,128}$/);
    }

    const ok = await gateway.post(CHAT, secret, chatBody("echo"), { "x-request-id": mine });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("x-request-id"), mine);
    assert.equal(JSON.parse(await ok.text()).choices[0].message.content, "hi there");
  }));
