/**
 * The limits cases, run on each store (limits_test.ts on SQLite, limits_postgres_test.ts
 * on PostgreSQL): rate limits and the context window over real HTTP, against a fake
 * upstream. Refusals are 429 (or 400 for the window) in the entry point's shape, carry
 * Retry-After and the x-ratelimit headers, take no hold, leave no ledger row and never
 * reach the upstream.
 */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { waitUntil } from "./accounting_support.ts";
import type { FakeUpstream } from "./fakes/upstream.ts";
import { channel, type TestGateway } from "./harness.ts";
import {
  assertMessagesError,
  assertOpenAiError,
  chatBody,
  messagesBody,
  openaiClient,
  responsesBody,
  type Scope,
} from "./support.ts";

const CHAT = "/v1/chat/completions";

/** A gateway whose default group says `group` and whose models say `models`, on one fake. */
async function limitedGateway(s: Scope, group: string, models = "") {
  const fake = await s.fake();
  const gateway = await s.gateway(
    `[groups.default]\nmodels = ["*"]\n${group}\n\n${models}\n` +
      channel({ name: "fake", protocol: "chat", baseUrl: fake.url, models: ["m", "other"] }),
  );
  return { fake, gateway };
}

/** The x-ratelimit-*-requests trio of a response. */
function requestHeaders(response: Response) {
  return {
    limit: response.headers.get("x-ratelimit-limit-requests"),
    remaining: response.headers.get("x-ratelimit-remaining-requests"),
    reset: response.headers.get("x-ratelimit-reset-requests"),
  };
}

/** A Retry-After that a client can act on: whole seconds within the minute's window. */
function assertRetryAfter(value: string | null | undefined): void {
  assert.match(value ?? "", /^\d+$/, `Retry-After: ${value}`);
  assert.ok(Number(value) >= 1 && Number(value) <= 60, `Retry-After: ${value}`);
}

/** OpenAI's reset format for a window of at most a minute: `59.5s`, `1m0s`, `120ms`. */
const RESET = /^(\d+ms|\d+(\.\d+)?s|1m0s)$/;

async function ok(response: Response): Promise<Response> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return response;
}

/** Starts a chat stream and waits for its headers (the fake holds it open at its gate). */
function openStream(gateway: TestGateway, secret: string): Promise<Response> {
  return gateway.post(CHAT, secret, chatBody("m", "hold me open", { stream: true }));
}

/** POSTs counted by the fake: the context check must leave it untouched. */
function upstreamPosts(fake: FakeUpstream): number {
  return fake.requests.filter((r) => r.method === "POST").length;
}

/** One limits case: its name, and its run in a scope whose gateways use the store under test. */
export interface LimitsCase {
  name: string;
  run(s: Scope): Promise<void>;
}

/** Every limits case. */
export const LIMITS_CASES: LimitsCase[] = [
  {
    name: "limits: rpm = 2 refuses the 3rd request with Retry-After and the headers, no ledger row",
    async run(s) {
      const { fake, gateway } = await limitedGateway(s, "rpm = 2");
      const { secret } = await gateway.createKey();
      // Neither counts: count_tokens and the model list are not entry points.
      for (let i = 0; i < 3; i++) {
        await ok(await gateway.post("/v1/messages/count_tokens", secret, messagesBody("m")));
        await ok(
          await fetch(`${gateway.baseUrl}/models`, {
            headers: { authorization: `Bearer ${secret}` },
          }),
        );
      }

      const first = await ok(await gateway.post(CHAT, secret, chatBody("m")));
      assert.equal(requestHeaders(first).limit, "2");
      assert.equal(requestHeaders(first).remaining, "1");
      assert.match(requestHeaders(first).reset ?? "", RESET);
      const second = await ok(await gateway.post("/v1/responses", secret, responsesBody("m")));
      assert.equal(requestHeaders(second).remaining, "0");
      // No tpm in this group: no tokens trio.
      assert.equal(second.headers.get("x-ratelimit-limit-tokens"), null);

      // The official SDK sees a RateLimitError with the headers it paces itself by.
      const error = await openaiClient(gateway, secret).chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "third" }],
      }).then(() => assert.fail("the third request passed"), (e: unknown) => e);
      assert.ok(error instanceof OpenAI.RateLimitError, String(error));
      assert.equal(error.code, "rate_limit_exceeded");
      assertRetryAfter(error.headers?.get("retry-after"));
      assert.equal(error.headers?.get("x-ratelimit-limit-requests"), "2");
      assert.equal(error.headers?.get("x-ratelimit-remaining-requests"), "0");
      assert.match(error.headers?.get("x-ratelimit-reset-requests") ?? "", RESET);
      assert.match(error.message, /\[groups\.default\] rpm = 2/);

      // The messages entry point answers in its own shape.
      const refused = await gateway.post("/v1/messages", secret, messagesBody("m"));
      assertRetryAfter(refused.headers.get("retry-after"));
      assert.equal(requestHeaders(refused).limit, "2");
      await assertMessagesError(refused, 429, "rate_limit_exceeded", "rate_limit_error");

      assert.equal(fake.requests.filter((r) => r.method === "POST").length, 2);
      assert.equal((await gateway.ledger()).length, 2);
    },
  },

  {
    name: "limits: N+1 concurrent streams on concurrency = N give exactly one 429 and no hold",
    async run(s) {
      const n = 3;
      const { fake, gateway } = await limitedGateway(
        s,
        `concurrency = ${n}\nrpm = 100`,
        `[models."m"]\ninput_price = 1\noutput_price = 1\n`,
      );
      const { secret, account } = await gateway.createKey({ balanceUsd: "1" });
      const gate = Promise.withResolvers<void>();
      fake.setBehaviour({ gate: gate.promise, gateAfter: 1 });

      // One stream first, to learn what one request holds.
      const streams = [await openStream(gateway, secret)];
      const oneHold = (await gateway.account(account)).held_micros;
      assert.ok(oneHold > 0);
      const rest = await Promise.all(
        Array.from({ length: n }, () => openStream(gateway, secret)),
      );
      const refusals = rest.filter((r) => r.status === 429);
      assert.equal(refusals.length, 1, `statuses: ${rest.map((r) => r.status)}`);
      assertRetryAfter(refusals[0]!.headers.get("retry-after"));
      const body = await assertOpenAiError(refusals[0]!, 429, "rate_limit_exceeded");
      assert.match(body.error.message, /concurrency = 3/);
      streams.push(...rest.filter((r) => r.status === 200));
      assert.equal(streams.length, n);
      // The headers went out with each stream's initial response.
      for (const stream of streams) {
        assert.equal(stream.headers.get("content-type"), "text/event-stream; charset=utf-8");
        assert.equal(requestHeaders(stream).limit, "100");
      }
      assert.equal(
        (await gateway.account(account)).held_micros,
        n * oneHold,
        "the 429 held nothing",
      );

      gate.resolve();
      for (const stream of streams) await stream.text();
      // Every stream ended: their slots are back.
      await ok(await gateway.post(CHAT, secret, chatBody("m")));
      assert.equal((await gateway.ledger()).length, n + 1);
      assert.equal(fake.requests.filter((r) => r.method === "POST").length, n + 1);
    },
  },

  {
    name: "limits: a client walking away from a stream gives its concurrency slot back",
    async run(s) {
      const { fake, gateway } = await limitedGateway(s, "concurrency = 1");
      const { secret } = await gateway.createKey();
      const gate = Promise.withResolvers<void>();
      fake.setBehaviour({ gate: gate.promise, gateAfter: 1 });
      const held = await openStream(gateway, secret);
      assert.equal(held.status, 200);
      const refused = await openStream(gateway, secret);
      await assertOpenAiError(refused, 429, "rate_limit_exceeded");

      await held.body!.cancel();
      await waitUntil(
        async () => (await gateway.ledger()).some((row) => row.status === "aborted"),
        "the abandoned stream to be settled",
      );
      const next = await openStream(gateway, secret);
      assert.equal(next.status, 200);
      gate.resolve();
      await next.text();
    },
  },

  {
    name: "limits: tpm is exhausted by a big prompt; a prompt over the tpm alone never fits",
    async run(s) {
      const { fake, gateway } = await limitedGateway(s, "tpm = 1000");
      const { secret } = await gateway.createKey();
      // ~480 tokens of prompt in 3,000-odd bytes: admitted at ~750 (bytes / 4), then the
      // echoed reply's ~480 output tokens push the minute's count over 1000.
      const big = chatBody("m", "apple ".repeat(480));
      const bytes = new TextEncoder().encode(JSON.stringify(big)).byteLength;
      const first = await ok(await gateway.post(CHAT, secret, big));
      assert.equal(first.headers.get("x-ratelimit-limit-tokens"), "1000");
      assert.equal(
        first.headers.get("x-ratelimit-remaining-tokens"),
        String(1000 - Math.ceil(bytes / 4)),
      );
      assert.match(first.headers.get("x-ratelimit-reset-tokens") ?? "", RESET);
      assert.equal(
        first.headers.get("x-ratelimit-limit-requests"),
        null,
        "no rpm, no requests trio",
      );

      const refused = await gateway.post(CHAT, secret, chatBody("m", "small"));
      assertRetryAfter(refused.headers.get("retry-after"));
      assert.equal(refused.headers.get("x-ratelimit-remaining-tokens"), "0");
      const body = await assertOpenAiError(refused, 429, "rate_limit_exceeded");
      assert.match(body.error.message, /\[groups\.default\] tpm = 1000/);

      const other = await gateway.createKey();
      const huge = await gateway.post(CHAT, other.secret, chatBody("m", "apple ".repeat(1000)));
      assert.equal(huge.headers.get("retry-after"), null, "no wait makes it fit");
      const hugeBody = await assertOpenAiError(huge, 429, "rate_limit_exceeded");
      assert.match(hugeBody.error.message, /Request too large/);
      assert.equal(fake.requests.filter((r) => r.method === "POST").length, 1);
      assert.equal((await gateway.ledger()).length, 1);
    },
  },

  {
    name: "limits: account limits count across the account's keys",
    async run(s) {
      const { gateway } = await limitedGateway(s, "account_rpm = 2");
      const a = await gateway.createKey({ account: "shared" });
      const b = await gateway.createKey({ account: "shared" });
      const stranger = await gateway.createKey();
      await ok(await gateway.post(CHAT, a.secret, chatBody("m")));
      const second = await ok(await gateway.post(CHAT, b.secret, chatBody("m")));
      assert.equal(requestHeaders(second).remaining, "0");
      const refused = await gateway.post(CHAT, a.secret, chatBody("m"));
      assertRetryAfter(refused.headers.get("retry-after"));
      const body = await assertOpenAiError(refused, 429, "rate_limit_exceeded");
      assert.match(body.error.message, /account "shared".*account_rpm = 2/);
      await ok(await gateway.post(CHAT, stranger.secret, chatBody("m")));
      assert.equal((await gateway.ledger()).length, 3);
    },
  },

  {
    name: "limits: model limits count across all keys, and only for that model",
    async run(s) {
      const { gateway } = await limitedGateway(s, "", `[models."m"]\nrpm = 1\n`);
      const a = await gateway.createKey();
      const b = await gateway.createKey();
      const first = await ok(await gateway.post(CHAT, a.secret, chatBody("m")));
      assert.equal(requestHeaders(first).limit, "1");
      const refused = await gateway.post("/v1/messages", b.secret, messagesBody("m"));
      const body = await assertMessagesError(
        refused,
        429,
        "rate_limit_exceeded",
        "rate_limit_error",
      );
      assert.match(body.error.message, /model "m".*\[models\."m"\] rpm = 1/);
      const other = await ok(await gateway.post(CHAT, b.secret, chatBody("other")));
      assert.equal(requestHeaders(other).limit, null, "an unlimited model carries no headers");
    },
  },

  {
    name: "limits: a prompt over the context window is 400 with both numbers, before the upstream",
    async run(s) {
      const { fake, gateway } = await limitedGateway(
        s,
        "rpm = 1", // a request refused for its length does not count toward the rpm
        `[models."m"]\ncontext_window = 1000\nmax_output_tokens = 200\n` +
          `[models."other"]\ncontext_window = 1000\nmax_output_tokens = 999\n`,
      );
      const { secret, account } = await gateway.createKey({ balanceUsd: "1" });
      const words = Array.from({ length: 5000 }, (_, i) => `word${i % 100}`).join(" ");

      const chat = await gateway.post(CHAT, secret, chatBody("m", words, { max_tokens: 100 }));
      const chatError = await assertOpenAiError(chat, 400, "context_length_exceeded");
      assert.match(chatError.error.message, /about \d{4,} input tokens plus 100 requested output/);
      assert.match(chatError.error.message, /context window of 1000/);
      assert.equal(chatError.error.param, "messages");

      const messages = await gateway.post("/v1/messages", secret, messagesBody("m", words));
      await assertMessagesError(messages, 400, "context_length_exceeded", "invalid_request_error");

      // No max output in the request: the model's max_output_tokens (999) is what must fit.
      const responses = await gateway.post(
        "/v1/responses",
        secret,
        responsesBody("other", "a short question"),
      );
      const responsesError = await assertOpenAiError(responses, 400, "context_length_exceeded");
      assert.match(responsesError.error.message, /max_output_tokens of 999/);

      assert.equal(upstreamPosts(fake), 0, "the upstream was never called");
      assert.equal((await gateway.ledger()).length, 0);
      assert.equal((await gateway.account(account)).held_micros, 0);

      // A small request fits, and is the first to count toward the rpm.
      await ok(await gateway.post(CHAT, secret, chatBody("m", "a short question")));
      assert.equal(upstreamPosts(fake), 1);
    },
  },

  {
    name: "limits: a request refused after admission (no balance for its hold) gives its slot back",
    async run(s) {
      const { fake, gateway } = await limitedGateway(
        s,
        "concurrency = 1\nrpm = 10",
        `[models."m"]\ninput_price = 1\noutput_price = 1\n`,
      );
      const { secret } = await gateway.createKey({ balanceUsd: "0" });
      for (let i = 0; i < 3; i++) {
        const refused = await gateway.post(CHAT, secret, chatBody("m"));
        // Admitted, so it carries the headers of the limits it counted toward.
        assert.equal(requestHeaders(refused).remaining, String(9 - i));
        await assertOpenAiError(refused, 403, "insufficient_user_quota");
      }
      assert.equal(upstreamPosts(fake), 0);
    },
  },
];
