/**
 * Resilience over real HTTP: bad framing is the client's 400, silent upstreams get
 * keep-alives, a client that walks away closes the upstream socket, upstream
 * Retry-After is respected, the connect timeout is enforced, and a settlement the
 * database refuses is logged without holding anything up.
 */
import assert from "node:assert/strict";
import type { LogFields, Logger } from "../src/log.ts";
import { chatBody as pricedBody, PRICED_MODEL, waitUntil } from "./accounting_support.ts";
import { startFakeUpstream } from "./fakes/upstream.ts";
import { channel, configWith, startGateway, type TestGateway } from "./harness.ts";
import {
  assertMessagesError,
  assertOpenAiError,
  chatBody,
  messagesBody,
  responsesBody,
  withScope,
} from "./support.ts";

const PATHS = {
  chat: "/v1/chat/completions",
  responses: "/v1/responses",
  messages: "/v1/messages",
} as const;

/** A logger that keeps error lines, so a test can assert nothing failed inside. */
function recordingLogger(): Logger & { errors: LogFields[] } {
  const errors: LogFields[] = [];
  return {
    errors,
    debug() {},
    info() {},
    warn() {},
    error: (message, fields = {}) => void errors.push({ message, ...fields }),
  };
}

/** Sends raw bytes over TCP and returns the whole answer's status line and body. */
async function rawExchange(gateway: TestGateway, head: string, body: Uint8Array) {
  const { hostname, port } = new URL(gateway.url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  await connection.write(new TextEncoder().encode(head));
  await connection.write(body);
  await connection.closeWrite();
  const answer = await new Response(connection.readable).text();
  const [status] = answer.split("\r\n", 1);
  return { status: status ?? "", body: answer.slice(answer.indexOf("\r\n\r\n") + 4) };
}

Deno.test("resilience: a body shorter than its Content-Length is 400 in the entry point's shape", async () => {
  const log = recordingLogger();
  const gateway = await startGateway(
    configWith(channel({
      name: "echo",
      protocol: "echo",
      models: ["echo"],
    })),
    { log },
  );
  try {
    const { secret } = await gateway.createKey();
    for (const path of Object.values(PATHS)) {
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n";
      const answer = await rawExchange(gateway, head, new TextEncoder().encode('{"model":"echo"'));
      assert.match(answer.status, /^HTTP\/1\.1 400/, `${path}: ${answer.status} ${answer.body}`);
      const body = JSON.parse(answer.body);
      const code = path === PATHS.messages ? body.error.code : body.error.code;
      assert.equal(code, "bad_request_body", answer.body);
      assert.equal(body.type === "error", path === PATHS.messages, "the entry point's shape");
    }
    assert.deepEqual(log.errors, [], "nothing failed inside the gateway");
  } finally {
    await gateway.close();
  }
});

Deno.test("resilience: invalid UTF-8 is 400 (U+FFFD spelt in UTF-8 is not), a chunked body over the limit is 413 unread", () =>
  withScope(async (s) => {
    const gateway = await s.gateway(
      `[server]\nmax_body_bytes = 4096\n` +
        configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
    );
    const { secret } = await gateway.createKey();
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"model":"echo","x":"'),
      0xff,
      0xfe,
    ]);
    await assertOpenAiError(
      await fetch(`${gateway.url}${PATHS.chat}`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: new Uint8Array([...bytes, ...new TextEncoder().encode('"}')]),
      }),
      400,
      "bad_request_body",
    );
    // U+FFFD spelt in UTF-8 is valid: only bytes that are not UTF-8 are refused.
    const replacement = await fetch(`${gateway.url}${PATHS.chat}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "echo", messages: [{ role: "user", content: "a\uFFFDb" }] }),
    });
    assert.equal(replacement.status, 200);
    assert.equal((await replacement.json()).choices[0].message.content, "a\uFFFDb");
    // 100 MB offered in 64 KB chunks without a Content-Length: refused once past 4 KB, so
    // the client gets no further than what socket buffers take.
    let offered = 0;
    const chunk = new Uint8Array(65_536).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offered >= 100_000_000) return controller.close();
        offered += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    await assertMessagesError(
      await fetch(`${gateway.url}${PATHS.messages}`, {
        method: "POST",
        headers: { "x-api-key": secret, "content-type": "application/json" },
        body,
      }),
      413,
      "request_too_large",
      "request_too_large",
    );
    assert.ok(offered < 50_000_000, `only the start of the body was read (${offered} bytes)`);
  }));

Deno.test("resilience: a small Content-Length beside a large chunked body is refused, never read", () =>
  withScope(async (s) => {
    // A body with a Content-Length is read in one go (it cannot be longer than declared):
    // a request that also says chunked must not get a body past the limit that way.
    const gateway = await s.gateway(
      `[server]\nmax_body_bytes = 4096\n` +
        configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
    );
    const { secret } = await gateway.createKey();
    // A valid request, served if it were read: only its size is wrong.
    const body = JSON.stringify({ ...chatBody("echo", "hi"), padding: "x".repeat(6_000) });
    const head = `POST ${PATHS.chat} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\n` +
      "Content-Type: application/json\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n";
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    // Refused with 400, or the connection closed under the unread body: never served.
    const status = await rawExchange(gateway, head, new TextEncoder().encode(chunked))
      .then((answer) => answer.status, (error) => String(error));
    assert.match(status, /^HTTP\/1\.1 400|ConnectionReset|BrokenPipe/, status);
    const ok = await gateway.post(PATHS.chat, secret, chatBody("echo", "hi"));
    assert.equal(ok.status, 200, await ok.text());
  }));

Deno.test("resilience: a silent upstream gets keep-alives before the idle timeout", () =>
  withScope(async (s) => {
    const gate = Promise.withResolvers<void>();
    const fake = await s.fake({ behaviour: { gate: gate.promise, gateAfter: 1 } });
    const gateway = await s.gateway(
      `[server]\nkeepalive_ms = 20\n[timeouts]\nidle = 60000\n` +
        configWith(
          channel({ name: "c", protocol: "chat", baseUrl: fake.url, models: ["c"] }) +
            channel({ name: "m", protocol: "messages", baseUrl: fake.url, models: ["m"] }),
        ),
    );
    const { secret } = await gateway.createKey();
    const expectations = [
      { path: PATHS.chat, body: chatBody("c", "one two", { stream: true }), alive: ": keep-alive" },
      {
        path: PATHS.messages,
        body: messagesBody("m", "one two", { stream: true }),
        alive: 'event: ping\ndata: {"type": "ping"}',
      },
    ];
    for (const { path, body, alive } of expectations) {
      const response = await gateway.post(path, secret, body);
      assert.equal(response.status, 200);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      // The first event arrived; then only keep-alives can come until the gate opens.
      while (!text.includes(alive)) text += (await reader.read()).value ?? "";
      assert.ok(text.split(alive).length >= 2, "a keep-alive while the upstream was silent");
      await reader.cancel();
    }
    gate.resolve();
  }));

Deno.test("resilience: a client that walks away closes the upstream's socket at once", () =>
  withScope(async (s) => {
    const streamCancelled = Promise.withResolvers<void>();
    const requestArrived = Promise.withResolvers<void>();
    const requestAborted = Promise.withResolvers<void>();
    const upstream = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      (request) => {
        if (request.headers.get("accept") !== "text/event-stream") {
          // Non-stream: answer only once the gateway has hung up (it never reads this).
          requestArrived.resolve();
          const hungUp = Promise.withResolvers<Response>();
          request.signal.addEventListener("abort", () => {
            requestAborted.resolve();
            hungUp.resolve(new Response(null, { status: 500 }));
          });
          return hungUp.promise;
        }
        const chunk = JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion.chunk",
          created: 1,
          model: "m",
          choices: [{ index: 0, delta: { role: "assistant", content: "hi" }, finish_reason: null }],
        });
        return new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(`data: ${chunk}\n\n`));
            },
            cancel: () => streamCancelled.resolve(),
          }),
          { headers: { "content-type": "text/event-stream" } },
        );
      },
    );
    try {
      const gateway = await s.gateway(configWith(channel({
        name: "c",
        protocol: "chat",
        baseUrl: `http://127.0.0.1:${upstream.addr.port}/v1`,
        models: ["m"],
      })));
      const { secret } = await gateway.createKey();
      const response = await gateway.post(PATHS.chat, secret, chatBody("m", "x", { stream: true }));
      const reader = response.body!.getReader();
      assert.equal((await reader.read()).done, false);
      await reader.cancel();
      await streamCancelled.promise;
      await waitUntil(async () => (await gateway.ledger()).length === 1, "the stream's row");
      assert.equal((await gateway.ledger())[0]!.status, "aborted");

      const client = new AbortController();
      const answer = fetch(`${gateway.url}${PATHS.chat}`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify(chatBody("m")),
        signal: client.signal,
      }).catch(() => "aborted");
      await requestArrived.promise;
      client.abort();
      assert.equal(await answer, "aborted");
      await requestAborted.promise;
    } finally {
      await upstream.shutdown();
    }
  }));

Deno.test("resilience: an upstream 429's Retry-After rests the key; other channels serve meanwhile", () =>
  withScope(async (s) => {
    const limited = await s.fake({
      name: "limited",
      behaviour: { error: { status: 429, times: 1, headers: { "retry-after": "120" } } },
    });
    const backup = await s.fake({ name: "backup" });
    const gateway = await s.gateway(configWith(
      channel({ name: "a", protocol: "chat", baseUrl: limited.url, models: ["m"], priority: 10 }) +
        channel({ name: "b", protocol: "chat", baseUrl: backup.url, models: ["m"] }) +
        channel({ name: "solo", protocol: "chat", baseUrl: limited.url, models: ["solo"] }),
    ));
    const { secret } = await gateway.createKey();
    for (let i = 0; i < 3; i++) {
      const response = await gateway.post(PATHS.chat, secret, chatBody("m"));
      assert.equal(response.status, 200, await response.text());
    }
    assert.equal(limited.requests.length, 1, "the resting channel was not tried again");
    assert.equal(backup.requests.length, 3);

    limited.setBehaviour({ error: { status: 429, headers: { "retry-after": "30" } } });
    const first = await assertOpenAiError(
      await gateway.post(PATHS.chat, secret, chatBody("solo")),
      429,
      "rate_limit_exceeded",
    );
    assert.ok(first.error.message.length > 0);
    const seen = limited.requests.length;
    const second = await gateway.post(PATHS.responses, secret, responsesBody("solo"));
    assert.equal(second.headers.get("retry-after"), "30");
    await assertOpenAiError(second, 429, "rate_limit_exceeded");
    assert.equal(limited.requests.length, seen, "no request went to the resting key");
  }));

Deno.test("resilience: the connect timeout fails a host that accepts no connection over at once", async () => {
  // A listener that never accepts: once its backlog is full, a connect hangs.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const filling: Deno.Conn[] = [];
  const probe = new AbortController();
  try {
    for (;;) {
      const timer = setTimeout(() => probe.abort(), 1_000);
      const connection = await Deno.connect({ hostname: "127.0.0.1", port, signal: probe.signal })
        .catch(() => undefined);
      clearTimeout(timer);
      if (!connection) break;
      filling.push(connection);
    }
    await withScope(async (s) => {
      const backup = await s.fake({ name: "backup" });
      const gateway = await s.gateway(
        `[timeouts]\nconnect = 200\nfirst_byte = 5000\n` + configWith(
          channel({
            name: "blackhole",
            protocol: "chat",
            baseUrl: `http://127.0.0.1:${port}/v1`,
            models: ["m", "solo"],
            priority: 10,
          }) + channel({ name: "backup", protocol: "chat", baseUrl: backup.url, models: ["m"] }),
        ),
      );
      const { secret } = await gateway.createKey();
      const served = await gateway.post(PATHS.chat, secret, chatBody("m"));
      assert.equal(served.status, 200, await served.text());
      assert.equal(backup.requests.length, 1);
      const failed = await assertOpenAiError(
        await gateway.post(PATHS.chat, secret, chatBody("solo")),
        504,
        "upstream_timeout",
      );
      assert.match(failed.error.message, /accepted no connection within 200 ms/);
    });
  } finally {
    for (const connection of filling) connection.close();
    listener.close();
  }
});

Deno.test("resilience: a settlement the database refuses is logged with its request id; the answer and the drain go on", async () => {
  const log = recordingLogger();
  const fake = await startFakeUpstream({ name: "up" });
  const gateway = await startGateway(
    configWith(
      channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["priced"] }),
      PRICED_MODEL,
    ),
    { log },
  );
  try {
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    // The hold goes through; the ledger row then has nowhere to go.
    await gateway.db.client.execute("ALTER TABLE ledger RENAME TO ledger_gone");
    const response = await gateway.post(PATHS.chat, secret, pricedBody("hi"));
    assert.equal(response.status, 200, await response.text());
    const requestId = response.headers.get("x-request-id");
    // The settlement's promise never rejects: the drain ends, with the failure logged.
    await gateway.server.settled();
    const failed = log.errors.filter((fields) => fields.message === "settlement failed");
    assert.deepEqual(failed.map((fields) => fields.request_id), [requestId]);
    assert.match(String(failed[0]!.error), /ledger/);
  } finally {
    await gateway.close();
    await fake.close();
  }
});
