/**
 * What a client or an upstream sends that tollgate must not pass on, end to end over real
 * HTTP: a forwarded header whose value could not be sent upstream is the client's 400 and
 * never counts against a channel; an upstream answer over max_answer_bytes, or framed as
 * llhttp refuses, is 502 `upstream_error`; the text request log stays one line a request
 * whatever the client names its model.
 */
import assert from "node:assert/strict";
import { answer, scripted } from "./fakes/scripted_upstream.ts";
import { channel, configWith } from "./harness.ts";
import {
  assertMessagesError,
  assertOpenAiError,
  chatBody,
  gatewayWithKey,
  messagesBody,
  type Scope,
  withScope,
} from "./support.ts";

/**
 * A gateway whose model `m` has two messages channels to fakes: `primary` first (a higher
 * priority), `backup` when the primary fails or cools down; and a key for it.
 */
async function primaryAndBackup(s: Scope) {
  const primary = await s.fake({ name: "primary" });
  const backup = await s.fake({ name: "backup" });
  const channels = [primary, backup].map((fake, n) =>
    channel({
      name: fake.name,
      protocol: "messages",
      baseUrl: fake.url,
      models: ["m"],
      priority: n === 0 ? 10 : 0,
    })
  );
  return { primary, backup, ...await gatewayWithKey(s, channels.join("")) };
}

/** The status line a raw request of `head` (its lines, each CRLF-ended) and `body` gets. */
async function rawStatusLine(url: string, head: string, body: string): Promise<string> {
  const { hostname, port } = new URL(url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  try {
    const bytes = new TextEncoder().encode(body);
    await connection.write(
      new TextEncoder().encode(`${head}Content-Length: ${bytes.byteLength}\r\n\r\n`),
    );
    await connection.write(bytes);
    const reader = connection.readable.getReader();
    let text = "";
    while (!text.includes("\r\n")) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    return text.slice(0, text.indexOf("\r\n"));
  } finally {
    try {
      connection.close();
    } catch { /* closed with its readable */ }
  }
}

Deno.test("upstream bounds: a forwarded header that could not be sent is the client's 400, and no channel cools down", () =>
  withScope(async (s) => {
    const { primary, backup, gateway, secret } = await primaryAndBackup(s);
    // More than the failures that cool a channel down (health.ts: 3).
    for (let n = 0; n < 5; n++) {
      const refused = await gateway.post("/v1/messages", secret, messagesBody("m"), {
        "anthropic-version": "2023-06-01\u00e9",
      });
      const body = await assertMessagesError(
        refused,
        400,
        "invalid_request",
        "invalid_request_error",
      );
      assert.match(body.error.message, /anthropic-version/);
    }
    // A control character (fetch will not send one): refused at the door by whatever
    // reads the head, never a 502.
    const head = await rawStatusLine(
      gateway.url,
      "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
        `x-api-key: ${secret}\r\nanthropic-beta: tools-2024-04-04\u0001\r\n`,
      JSON.stringify(messagesBody("m")),
    );
    assert.match(head, /^HTTP\/1\.1 400 /);
    assert.equal(primary.requests.length + backup.requests.length, 0, "no channel was tried");
    // The channel the refused requests would have gone to is not cooling: it serves next.
    const served = await gateway.post("/v1/messages", secret, messagesBody("m"), {
      "anthropic-version": "2023-06-01",
    });
    assert.equal(served.status, 200, await served.text());
    assert.equal(primary.requests.length, 1);
    assert.equal(primary.requests[0]!.headers["anthropic-version"], "2023-06-01");
    assert.equal(backup.requests.length, 0);
  }));

Deno.test("upstream bounds: an openai-beta value that could not be sent is 400 on the chat entry point", () =>
  withScope(async (s) => {
    const fake = await s.fake();
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "openai", protocol: "chat", baseUrl: fake.url, models: ["m"] }),
    );
    const refused = await gateway.post("/v1/chat/completions", secret, chatBody("m"), {
      "openai-beta": "assistants=v2\u00ff",
    });
    const body = await assertOpenAiError(refused, 400, "invalid_request");
    assert.match(body.error.message, /openai-beta/);
    assert.equal(fake.requests.length, 0);
  }));

Deno.test("upstream bounds: an answer over max_answer_bytes, or framed as llhttp refuses, is 502 upstream_error", async () => {
  // Each connection's first request gets the next broken answer; one announcing 64 MiB and
  // a byte is refused before any of it is read (none is ever sent).
  const broken = [
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 67108865\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
    "2\n{}\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \u000b2\r\n\r\n{}",
  ];
  let next = 0;
  const upstream = scripted(async (peer) => {
    while (await peer.request()) await peer.write(broken[next++] ?? answer("{}"));
  });
  const baseUrl = upstream.url.replace(/\/chat\/completions$/, "");
  try {
    await withScope(async (s) => {
      const { gateway, secret } = await gatewayWithKey(
        s,
        channel({ name: "raw", protocol: "chat", baseUrl, models: ["m"] }),
        // Each broken answer is the answer to one request: none is tried again.
        "[failover]\nretries = 0\n",
      );
      for (const limit of [/max_answer_bytes \(67108864 bytes\)/, undefined, undefined]) {
        const failed = await gateway.post("/v1/chat/completions", secret, chatBody("m"));
        const body = await assertOpenAiError(failed, 502, "upstream_error");
        if (limit) assert.match(body.error.message, limit);
      }
    });
  } finally {
    await upstream.close();
  }
});

Deno.test("upstream bounds: a model named to forge a log line stays in one line of the text log", () =>
  withScope(async (s) => {
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "echo", protocol: "echo", models: ["echo"] }),
    );
    const forged = "echo\nFORGED 200 ok key=admin \u001b[2K";
    const response = await gateway.post("/v1/chat/completions", secret, chatBody(forged));
    await response.text();
    const line = gateway.requestLog.find((text) => text.includes("FORGED"));
    assert.ok(line, gateway.requestLog.join("\n"));
    for (const raw of ["\n", "\r", "\u001b"]) assert.ok(!line.includes(raw), line);
    assert.match(line, / model=echo\\x0aFORGED\\x20200\\x20ok\\x20key=admin\\x20\\x1b\[2K/);
  }));

Deno.test("upstream bounds: an upstream's 414 or 431 is the client's fault: relayed, tried once, no channel cools", () =>
  withScope(async (s) => {
    // A messages channel gets the client's query and its anthropic-beta: a client sending
    // long ones makes the upstream answer 414 or 431, which says nothing of the channel.
    const { primary, backup, gateway, secret } = await primaryAndBackup(s);
    for (const status of [414, 431]) {
      primary.setBehaviour({ error: { status, message: `Too long (${status}).`, times: 5 } });
      for (let n = 0; n < 5; n++) {
        const refused = await gateway.post("/v1/messages", secret, messagesBody("m"));
        const body = await assertMessagesError(
          refused,
          status,
          "invalid_request",
          "invalid_request_error",
        );
        assert.equal(body.error.message, `Too long (${status}).`);
      }
    }
    assert.equal(backup.requests.length, 0, "not retried on another channel");
    const served = await gateway.post("/v1/messages", secret, messagesBody("m"));
    assert.equal(served.status, 200, await served.text());
    assert.equal(primary.requests.length, 11, "the primary is not cooling down");
    assert.equal(backup.requests.length, 0);
  }));

Deno.test("upstream bounds: [server] max_answer_bytes bounds a channel's whole answer as configured", () =>
  withScope(async (s) => {
    const fake = await s.fake({ behaviour: { reply: { text: "word ".repeat(800) } } });
    const gateway = await s.gateway(
      `[server]\nmax_answer_bytes = 2048\n` +
        configWith(channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["m"] })),
    );
    const { secret } = await gateway.createKey();
    const failed = await gateway.post("/v1/chat/completions", secret, chatBody("m"));
    const body = await assertOpenAiError(failed, 502, "upstream_error");
    assert.match(body.error.message, /max_answer_bytes \(2048 bytes\)/);
    // A stream is forwarded as it comes: its events are each far under the limit.
    const streamed = await gateway.post(
      "/v1/chat/completions",
      secret,
      chatBody("m", "hi", { stream: true }),
    );
    assert.equal(streamed.status, 200);
    assert.match(await streamed.text(), /\[DONE\]/);
  }));
