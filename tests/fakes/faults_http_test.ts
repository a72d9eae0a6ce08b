/**
 * The fake's faults before any answer: HTTP errors in each provider's shape and words,
 * connections closed unanswered, scripts and cycles of behaviours, the records and
 * promises tests wait on.
 */
import assert from "node:assert/strict";
import { post, PROTOCOLS, requestBody, withFake } from "./fake_client.ts";
import { overloaded, rateLimited, serverError, unavailable } from "./faults.ts";
import { startFakeUpstream } from "./upstream.ts";

const start = () => startFakeUpstream({ name: "f" });

const OPENAI_RATE_LIMIT = "Rate limit reached for requests per min (RPM): Limit 60, Used 60, " +
  "Requested 1. Please try again in 1s. Visit https://platform.openai.com/account/rate-limits " +
  "to learn more.";
const ANTHROPIC_RATE_LIMIT = "Number of requests has exceeded your per-minute rate limit " +
  "(https://docs.anthropic.com/en/api/rate-limits); see the response headers for current " +
  "usage. Please reduce the prompt length or the maximum tokens requested, or try again later.";

/** The error body a client gets, checked against the provider's shape. */
async function errorOf(response: Response, status: number, retryAfter: string | null = null) {
  assert.equal(response.status, status);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(response.headers.get("retry-after"), retryAfter);
  assert.equal(response.headers.get("connection"), "close");
  const body = await response.json();
  if (body.type === "error") assert.equal(body.request_id, response.headers.get("request-id"));
  return body;
}

for (const protocol of PROTOCOLS) {
  const anthropic = protocol === "messages";
  const ask = (fake: Parameters<typeof post>[0]) =>
    post(fake, protocol, requestBody(protocol, "hi"));

  Deno.test(`fault ${protocol}: 429 with and without Retry-After, for N requests or always`, () =>
    withFake(start, async (fake) => {
      fake.setBehaviour(rateLimited({ retryAfter: 7, times: 1 }));
      const limited = await errorOf(await ask(fake), 429, "7");
      assert.deepEqual(
        limited,
        anthropic
          ? {
            type: "error",
            error: { type: "rate_limit_error", message: ANTHROPIC_RATE_LIMIT },
            request_id: limited.request_id,
          }
          : {
            error: {
              message: OPENAI_RATE_LIMIT,
              type: "requests",
              param: null,
              code: "rate_limit_exceeded",
            },
          },
      );
      assert.equal((await ask(fake)).status, 200);
      fake.setBehaviour(rateLimited());
      for (let i = 0; i < 2; i++) await errorOf(await ask(fake), 429);
    }));

  Deno.test(`fault ${protocol}: 500 once then normal, 503 and 529 always`, () =>
    withFake(start, async (fake) => {
      fake.setBehaviour(serverError({ times: 1 }));
      const failed = await errorOf(await ask(fake), 500);
      assert.deepEqual(
        failed.error,
        anthropic ? { type: "api_error", message: "Internal server error" } : {
          message: "The server had an error while processing your request. Sorry about that!",
          type: "server_error",
          param: null,
          code: null,
        },
      );
      assert.equal((await ask(fake)).status, 200);
      fake.setBehaviour(unavailable({ retryAfter: 2 }));
      for (let i = 0; i < 2; i++) {
        const body = await errorOf(await ask(fake), 503, "2");
        assert.deepEqual(
          body.error,
          anthropic ? { type: "api_error", message: "Service unavailable" } : {
            message: "The engine is currently overloaded, please try again later.",
            type: "server_error",
            param: null,
            code: null,
          },
        );
      }
      fake.setBehaviour(overloaded());
      const busy = await errorOf(await ask(fake), 529);
      if (anthropic) {
        assert.deepEqual(busy.error, { type: "overloaded_error", message: "Overloaded" });
      }
    }));

  Deno.test(`fault ${protocol}: a reset closes the connection after the request, unanswered`, () =>
    withFake(start, async (fake) => {
      fake.setBehaviour(["reset", "ok"]);
      await assert.rejects(ask(fake), TypeError);
      assert.equal(
        (await fake.received(1)).path,
        `/v1/${protocol === "chat" ? "chat/completions" : protocol}`,
      );
      await fake.reached("reset");
      assert.equal((await ask(fake)).status, 200);
    }));
}

Deno.test("fault: a reset is seen on the wire as the connection ending with no byte of answer", () =>
  withFake(start, async (fake) => {
    fake.setBehaviour({ reset: true });
    const { port } = new URL(fake.url);
    const connection = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
    const body = JSON.stringify(requestBody("chat", "hi"));
    const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: ` +
      `application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    await connection.write(new TextEncoder().encode(request));
    const answer = await new Response(connection.readable).arrayBuffer();
    assert.equal(answer.byteLength, 0);
    assert.deepEqual(fake.requests[0]?.body, JSON.parse(body));
  }));

Deno.test("fault: each request comes on its own connection, answered with Connection: close", () =>
  withFake(start, async (fake) => {
    const { port } = new URL(fake.url);
    const connection = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
    const request = "GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n";
    await connection.write(new TextEncoder().encode(request));
    const answer = await new Response(connection.readable).text();
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(answer, /\r\nconnection: close\r\n/);
    assert.equal(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).object, "list");
  }));

Deno.test("fault: a script plays one step per request, the last repeating; a cycle repeats all", () =>
  withFake(start, async (fake) => {
    const statuses = async (count: number) => {
      const out: (number | string)[] = [];
      for (let i = 0; i < count; i++) {
        const response = await post(fake, "chat", requestBody("chat", "hi")).catch(() => null);
        out.push(response ? response.status : "reset");
        await response?.body?.cancel();
      }
      return out;
    };
    fake.setBehaviour(["500", serverError(), "ok"]);
    assert.deepEqual(await statuses(4), [500, 500, 200, 200]);
    fake.setBehaviour({ cycle: ["ok", "500", "ok", "reset"] });
    assert.deepEqual(await statuses(6), [200, 500, 200, "reset", 200, 500]);
    fake.setBehaviour({ cycle: ["ok", "reset"] });
    assert.deepEqual(await statuses(4), [200, "reset", 200, "reset"]);
    fake.setBehaviour(["429", "503", "529"]);
    assert.deepEqual(await statuses(3), [429, 503, 529]);
  }));

Deno.test("fault: records say which key and body each attempt carried; received(n) waits", () =>
  withFake(start, async (fake) => {
    const second = fake.received(2);
    await post(fake, "chat", requestBody("chat", "one"), "sk-first");
    await post(fake, "messages", requestBody("messages", "two"), "sk-ant-second");
    assert.equal((await second).key, "sk-ant-second");
    assert.deepEqual(fake.requests.map((request) => request.key), ["sk-first", "sk-ant-second"]);
    assert.deepEqual(fake.requests[0]?.body, requestBody("chat", "one"));
    assert.equal((await fake.received(1)).headers.authorization, "Bearer sk-first");
  }));

Deno.test("fault: a hang sends no head until close(); then 503", async () => {
  const fake = await startFakeUpstream({ behaviour: "hang" });
  const answer = post(fake, "chat", requestBody("chat", "hi"));
  await fake.received(1);
  const closed = fake.close();
  const response = await answer;
  assert.equal(response.status, 503);
  await response.body?.cancel();
  await closed;
});
