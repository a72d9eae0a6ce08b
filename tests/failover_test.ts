/**
 * Failover that rescues (design.md "Failover"): retries on the same channel, waits of a
 * short Retry-After, fallback models for a request too long, commit on first content, the
 * HTTP status when nothing went out, and what the ledger and the answer's headers say.
 * Time moves on a ManualClock: no test waits for a pause or a deadline.
 */
import assert from "node:assert/strict";
import { ManualClock } from "./fakes/manual_clock.ts";
import { channel, configWith } from "./harness.ts";
import {
  chatBody,
  eventJson,
  fakeSays,
  messagesBody,
  readEvents,
  replyText,
  withScope,
} from "./support.ts";

/** Two priced models, `small` with `large` as its fallback. */
const CHAIN = `
[models.small]
context_window = 1_000
input_price = 1
output_price = 2
fallbacks = ["large"]

[models.large]
context_window = 100_000
input_price = 10
output_price = 20
`;

/** One priced model. */
const PRICED = `
[models.small]
input_price = 1
output_price = 2
`;

Deno.test("failover: a 500 once is retried on the same channel after a pause, and the ledger keeps both attempts", () =>
  withScope(async (s) => {
    const clock = new ManualClock();
    const a = await s.fake({ name: "a", behaviour: { error: { status: 500, times: 1 } } });
    const b = await s.fake({ name: "b" });
    const gateway = await s.gateway(
      configWith(
        channel({ name: "a", protocol: "chat", baseUrl: a.url, models: ["small"], priority: 1 }) +
          channel({ name: "b", protocol: "chat", baseUrl: b.url, models: ["small"] }),
        PRICED,
      ),
      { clock },
    );
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    const start = clock.now();
    const response = await clock.advanceUntil(
      gateway.post("/v1/chat/completions", secret, chatBody("small")),
      100,
    );
    assert.equal(response.status, 200);
    assert.equal(replyText(await response.json()), fakeSays("a"));
    assert.ok(clock.now() - start >= 250, "the retry waited its pause (on the gateway's clock)");
    assert.equal(response.headers.get("x-tollgate-attempts"), "2");
    assert.equal(response.headers.get("x-tollgate-model"), "small");
    assert.equal(a.requests.length, 2);
    assert.equal(b.requests.length, 0);
    const [row] = await gateway.ledger();
    assert.equal(row!.attempts, 2);
    const attempts = JSON.parse(row!.attempt_log!);
    assert.deepEqual(attempts.map((attempt: { outcome: string }) => attempt.outcome), [
      "failed",
      "ok",
    ]);
    assert.equal(attempts[0].status, 500);
    assert.equal(attempts[0].costMicros, 0, "a failed attempt costs nothing");
    assert.equal(attempts[1].costMicros, row!.cost_micros);
  }));

Deno.test("failover: a 429 with a short Retry-After is waited out on the same key", () =>
  withScope(async (s) => {
    const clock = new ManualClock();
    const a = await s.fake({
      name: "a",
      behaviour: { error: { status: 429, times: 1, headers: { "retry-after": "2" } } },
    });
    const b = await s.fake({ name: "b" });
    const gateway = await s.gateway(
      configWith(
        channel({
          name: "a",
          protocol: "chat",
          baseUrl: a.url,
          models: ["small"],
          keys: ["ka1", "ka2"],
          priority: 1,
        }) + channel({ name: "b", protocol: "chat", baseUrl: b.url, models: ["small"] }),
        PRICED,
      ),
      { clock },
    );
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    const start = clock.now();
    const response = await clock.advanceUntil(
      gateway.post("/v1/chat/completions", secret, chatBody("small")),
      250,
    );
    assert.equal(replyText(await response.json()), fakeSays("a"));
    assert.ok(clock.now() - start >= 2_000, "it waited the two seconds asked");
    assert.deepEqual(
      a.requests.map((request) => request.headers.authorization),
      ["Bearer ka1", "Bearer ka1"],
      "on the same key",
    );
    assert.equal(b.requests.length, 0);
  }));

Deno.test("failover: a 429 asking for longer than retry_after_max_ms fails over at once", () =>
  withScope(async (s) => {
    const a = await s.fake({
      name: "a",
      behaviour: { error: { status: 429, headers: { "retry-after": "60" } } },
    });
    const b = await s.fake({ name: "b" });
    const gateway = await s.gateway(configWith(
      channel({ name: "a", protocol: "chat", baseUrl: a.url, models: ["small"], priority: 1 }) +
        channel({ name: "b", protocol: "chat", baseUrl: b.url, models: ["small"] }),
      PRICED,
    ));
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    const response = await gateway.post("/v1/chat/completions", secret, chatBody("small"));
    assert.equal(replyText(await response.json()), fakeSays("b"));
    assert.equal(a.requests.length, 1);
  }));

Deno.test("failover: an upstream's 400 context_length_exceeded moves to a fallback with a larger window, billed at its prices", () =>
  withScope(async (s) => {
    const small = await s.fake({
      name: "small",
      behaviour: {
        error: {
          status: 400,
          message: "This model's maximum context length is 1000 tokens.",
          type: "invalid_request_error",
        },
      },
    });
    const large = await s.fake({ name: "large" });
    const gateway = await s.gateway(configWith(
      channel({ name: "s", protocol: "chat", baseUrl: small.url, models: ["small"] }) +
        channel({ name: "l", protocol: "messages", baseUrl: large.url, models: ["large"] }),
      CHAIN,
    ));
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    const response = await gateway.post("/v1/chat/completions", secret, chatBody("small"));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-tollgate-model"), "large");
    const body = await response.json();
    assert.equal(replyText(body), fakeSays("large"));
    assert.equal(body.model, "large", "the answer names the model that served");
    assert.equal(small.requests.length, 1, "the context refusal is not retried");
    const [row] = await gateway.ledger();
    assert.equal(row!.model, "small");
    assert.equal(row!.served_model, "large");
    // At the fallback's prices: 10 and 20 USD per 1M tokens.
    assert.equal(row!.cost_micros, row!.input_tokens * 10 + row!.output_tokens * 20);
    // Usage by model counts the model that served.
    const rollups = await gateway.db.kysely.selectFrom("usage_hourly").select("model").execute();
    assert.deepEqual(rollups.map((rollup) => rollup.model), ["large"]);
  }));

Deno.test("failover: a request over a model's window starts at the fallback it fits; none fits: 400", () =>
  withScope(async (s) => {
    const small = await s.fake({ name: "small" });
    const large = await s.fake({ name: "large" });
    const gateway = await s.gateway(configWith(
      channel({ name: "s", protocol: "chat", baseUrl: small.url, models: ["small"] }) +
        channel({ name: "l", protocol: "chat", baseUrl: large.url, models: ["large"] }),
      CHAIN,
    ));
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    const long = Array.from({ length: 1_500 }, (_, i) => `word${i}`).join(" ");
    const response = await gateway.post(
      "/v1/chat/completions",
      secret,
      chatBody("small", long, { max_tokens: 10 }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-tollgate-model"), "large");
    assert.equal(small.requests.length, 0, "a model whose window is too small is never sent");
    const huge = Array.from({ length: 150_000 }, (_, i) => `w${i}`).join(" ");
    const refused = await gateway.post(
      "/v1/chat/completions",
      secret,
      chatBody("small", huge, { max_tokens: 10 }),
    );
    assert.equal(refused.status, 400);
    assert.equal((await refused.json()).error.code, "context_length_exceeded");
    assert.equal(large.requests.length, 1);
  }));

Deno.test("failover: a stream that sends its preamble then an error fails over; the client sees one preamble", () =>
  withScope(async (s) => {
    // message_start, ping, content_block_start, then the error event.
    const a = await s.fake({ name: "a", behaviour: { midStreamError: { afterEvents: 3 } } });
    const b = await s.fake({ name: "b" });
    const gateway = await s.gateway(configWith(
      channel({ name: "a", protocol: "messages", baseUrl: a.url, models: ["m"], priority: 1 }) +
        channel({ name: "b", protocol: "messages", baseUrl: b.url, models: ["m"] }),
      "[failover]\nretries = 0\n",
    ));
    const { secret } = await gateway.createKey();
    const response = await gateway.post(
      "/v1/messages",
      secret,
      messagesBody("m", "hi there", { stream: true }),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-tollgate-attempts"), "2");
    const events = await readEvents(response);
    assert.equal(events.filter((event) => event.event === "message_start").length, 1);
    assert.equal(events.at(-1)?.event, "message_stop");
    const text = eventJson(events)
      .map((event) => (event as { delta?: { text?: string } }).delta?.text ?? "").join("");
    assert.equal(text, fakeSays("b"));
  }));

Deno.test("failover: a stream whose every attempt failed before anything went out gets an HTTP error status", () =>
  withScope(async (s) => {
    const a = await s.fake({ name: "a", behaviour: { midStreamError: { afterEvents: 1 } } });
    const gateway = await s.gateway(configWith(
      channel({ name: "a", protocol: "chat", baseUrl: a.url, models: ["m"] }),
      "[failover]\nretries = 0\n",
    ));
    const { secret } = await gateway.createKey();
    const response = await gateway.post(
      "/v1/chat/completions",
      secret,
      chatBody("m", "hi there", { stream: true }),
    );
    assert.equal(response.status, 502);
    assert.equal(response.headers.get("content-type"), "application/json");
    const body = await response.json();
    assert.match(
      body.error.message,
      /stream reported an error before its answer: The fake upstream failed/,
    );
    const [row] = await gateway.ledger();
    assert.equal(row!.status, "failed");
    assert.equal(row!.cost_micros, 0);
  }));

Deno.test("failover: an alias is listed by the model list and served by its chain, the ledger naming both", () =>
  withScope(async (s) => {
    const gateway = await s.gateway(configWith(
      channel({ name: "echo", protocol: "echo", models: ["echo"] }),
      '[models.assistant]\nfallbacks = ["echo"]\n',
    ));
    const { secret } = await gateway.createKey({ models: ["assistant"] });
    const listed = await fetch(`${gateway.baseUrl}/models`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.deepEqual(
      (await listed.json()).data.map((model: { id: string }) => model.id),
      ["assistant"],
      "a key restricted to the alias lists it alone",
    );
    const response = await gateway.post(
      "/v1/chat/completions",
      secret,
      chatBody("assistant", "hello there"),
    );
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-tollgate-model"), "echo");
    assert.equal(replyText(await response.json()), "hello there");
    const [row] = await gateway.ledger();
    assert.equal(row!.model, "assistant");
    assert.equal(row!.served_model, "echo");
  }));

Deno.test("failover: the hold grows before a dearer fallback; refused, failover stops there", () =>
  withScope(async (s) => {
    const small = await s.fake({ name: "small", behaviour: { error: { status: 500 } } });
    const large = await s.fake({ name: "large" });
    const gateway = await s.gateway(configWith(
      channel({ name: "s", protocol: "chat", baseUrl: small.url, models: ["small"] }) +
        channel({ name: "l", protocol: "chat", baseUrl: large.url, models: ["large"] }),
      `${CHAIN}\n[failover]\nretries = 0\n`,
    ));
    // 500 output tokens at most: small's worst case is a tenth of a cent, large's over a cent.
    const body = chatBody("small", "hi", { max_tokens: 500 });
    const poor = await gateway.createKey({ balanceUsd: "0.01" });
    const refused = await gateway.post("/v1/chat/completions", poor.secret, body);
    assert.equal(refused.status, 502, "the answer is the last failure's");
    assert.equal(large.requests.length, 0, "the dearer fallback was never sent");
    assert.equal((await gateway.account(poor.account)).held_micros, 0);

    const rich = await gateway.createKey({ balanceUsd: "1" });
    const served = await gateway.post("/v1/chat/completions", rich.secret, body);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get("x-tollgate-model"), "large");
    await served.body?.cancel();
    const row = (await gateway.ledger()).at(-1)!;
    const after = await gateway.account(rich.account);
    assert.equal(after.held_micros, 0, "the grown hold is released whole");
    assert.equal(after.balance_micros, 1_000_000 - row.cost_micros);
  }));

Deno.test("failover: a rescue the balance cannot hold is not sent; the stream ends with the error event", () =>
  withScope(async (s) => {
    const answer = "The quick brown fox jumps over the lazy dog again and again";
    const a = await s.fake({ name: "a", behaviour: { answer, cut: { after: 2 } } });
    const b = await s.fake({ name: "b", behaviour: { answer } });
    const gateway = await s.gateway(configWith(
      channel({ name: "a", protocol: "chat", baseUrl: a.url, models: ["m"], priority: 1 }) +
        channel({ name: "b", protocol: "chat", baseUrl: b.url, models: ["m"] }),
      // Input is dear: a rescue's worst case (the prompt again, and the prefill) is not small.
      "[models.m]\nprefill = true\ninput_price = 100\noutput_price = 1\n",
    ));
    const body = chatBody("m", "hi", { max_tokens: 100, stream: true });
    // The first attempt's worst case, as the hold counts it: a token per 3 bytes of body.
    const worst = Math.ceil(JSON.stringify(body).length / 3) * 100 + 100;
    const poor = await gateway.createKey({ balanceUsd: ((worst + 50) / 1e6).toFixed(6) });
    const refused = await gateway.post("/v1/chat/completions", poor.secret, body);
    assert.equal(refused.status, 200);
    const events = await readEvents(refused);
    assert.match(events.at(-1)!.data, /"error"/);
    assert.ok(events.every((event) => event.data !== "[DONE]"));
    assert.equal(b.requests.length, 0, "the rescue was never sent");

    const rich = await gateway.createKey({ balanceUsd: "1" });
    const rescued = await gateway.post("/v1/chat/completions", rich.secret, body);
    const text = eventJson(await readEvents(rescued))
      .map((chunk) =>
        (chunk as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ??
          ""
      ).join("");
    assert.equal(text, answer);
    assert.equal(b.requests.length, 1);
    const after = await gateway.account(rich.account);
    const row = (await gateway.ledger()).at(-1)!;
    assert.equal(after.held_micros, 0);
    assert.equal(after.balance_micros, 1_000_000 - row.cost_micros);
  }));
