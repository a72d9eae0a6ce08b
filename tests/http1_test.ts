/**
 * HTTP/1.1 over a raw socket, as an independent probe sends it (issue 41): pipelined
 * requests, a chunked body past the limit, the Host header, a body in 1-byte chunks and a
 * large trailer section. Where tollgate must do what a plain Hono app on the same
 * `Deno.serve` does, the same bytes go to that app (fakes/plain_hono.ts) too.
 */
import assert from "node:assert/strict";
import { startPlainHono } from "./fakes/plain_hono.ts";
import { channel, configWith } from "./harness.ts";
import { rawConnect } from "./raw_http.ts";
import { chatBody, messagesBody, withScope } from "./support.ts";

/** A gateway on the echo channel, with `extra` config lines, and a key. */
async function echoGateway(s: Parameters<Parameters<typeof withScope>[0]>[0], extra = "") {
  const gateway = await s.gateway(
    `${extra}\n${configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] }))}`,
  );
  const { secret } = await gateway.createKey();
  return { gateway, secret };
}

/** A POST of `body` to the chat entry point, with a Content-Length. */
function chatPost(secret: string, body: string, host = "Host: x\r\n"): string {
  return `POST /v1/chat/completions HTTP/1.1\r\n${host}Authorization: Bearer ${secret}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
}

/** The head of a chunked POST to the chat entry point. */
function chunkedHead(secret: string): string {
  return `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\n` +
    "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
}

/** What a test that compares the gateway with the plain app is given. */
interface Compared {
  secret: string;
  /** The gateway's and the plain app's roots, by name. */
  targets: [string, string][];
}

/**
 * Runs `test` against a gateway with `gatewayConfig` lines and the plain app (behind
 * Hono's bodyLimit of `maxBytes` when given), then stops both.
 */
function compared(
  test: (servers: Compared) => Promise<void>,
  gatewayConfig = "",
  maxBytes?: number,
): Promise<void> {
  return withScope(async (s) => {
    const { gateway, secret } = await echoGateway(s, gatewayConfig);
    const plain = startPlainHono(maxBytes);
    try {
      await test({ secret, targets: [["tollgate", gateway.url], ["plain Hono", plain.url]] });
    } finally {
      await plain.close();
    }
  });
}

Deno.test("http1: POSTs pipelined in one write are all answered, in order, as by a plain Hono app", () =>
  compared(async ({ secret, targets }) => {
    const small = Array.from({ length: 10 }, (_, i) => JSON.stringify(chatBody("echo", `p${i}`)));
    const large = Array.from(
      { length: 3 },
      (_, i) => JSON.stringify(chatBody("echo", `q${i}:${"x".repeat(20_000)}`)),
    );
    for (const [name, url] of targets) {
      for (
        const [label, bodies, tag] of [["10 small", small, "p"], [
          "3 of 20 KB",
          large,
          "q",
        ]] as const
      ) {
        const client = await rawConnect(url);
        try {
          await client.send(bodies.map((body) => chatPost(secret, body)).join(""));
          const answers = [];
          for (let i = 0; i < bodies.length; i++) answers.push(await client.answer());
          assert.deepEqual(
            answers.map((answer) => answer?.status),
            bodies.map(() => "HTTP/1.1 200 OK"),
            `${name}, ${label}: ${client.statuses().join(" | ")}`,
          );
          // In order: each answer carries its own request's text.
          answers.forEach((answer, i) => assert.ok(answer!.body.includes(`"${tag}${i}`), name));
        } finally {
          client.close();
        }
      }
    }
  }));

Deno.test("http1: a chunked body past max_body_bytes is 413 as soon as it passes, as by a plain Hono app", () =>
  // A body deadline far away: a 408 cannot stand in for the 413.
  compared(
    async ({ secret, targets }) => {
      for (const [name, url] of targets) {
        const client = await rawConnect(url);
        try {
          await client.send(chunkedHead(secret));
          // 128 KiB in 16 KiB chunks, and no last chunk: the client waits for an answer.
          for (let i = 0; i < 8; i++) client.sendAll(`4000\r\n${"x".repeat(16_384)}\r\n`);
          const answer = await client.answer();
          assert.equal(
            answer?.status,
            "HTTP/1.1 413 Payload Too Large",
            `${name}: ${answer?.body}`,
          );
          if (name === "tollgate") {
            const { error } = JSON.parse(answer!.body);
            assert.equal(error.code, "request_too_large");
            assert.match(error.message, /the limit is 65536 bytes/);
          }
        } finally {
          client.close();
        }
      }
    },
    "[server]\nmax_body_bytes = 65536\n[timeouts]\nbody = 3600000",
    65_536,
  ));

Deno.test("http1: a request without Host, or with an invalid one, is 400 invalid_request in its path's shape", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGateway(s);
    const exchange = async (bytes: string) => {
      const client = await rawConnect(gateway.url);
      try {
        await client.send(bytes);
        const answer = await client.answer();
        assert.ok(answer, bytes);
        return { status: answer.status, body: JSON.parse(answer.body || "null") };
      } finally {
        client.close();
      }
    };
    const healthz = (host: string) => `GET /healthz HTTP/1.1\r\n${host}\r\n`;

    const missing = await exchange(healthz(""));
    assert.equal(missing.status, "HTTP/1.1 400 Bad Request");
    assert.equal(missing.body.error.code, "invalid_request");
    assert.match(missing.body.error.message, /no Host header/);
    // The messages shape under /v1/messages, before the body or the key is looked at.
    const body = JSON.stringify(messagesBody("echo"));
    const messages = await exchange(
      `POST /v1/messages HTTP/1.1\r\nx-api-key: ${secret}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    assert.equal(messages.status, "HTTP/1.1 400 Bad Request");
    assert.equal(messages.body.type, "error");
    assert.equal(messages.body.error.type, "invalid_request_error");
    assert.equal(messages.body.error.code, "invalid_request");

    for (const host of ["a b", "a/b", "a<b>", "x:80:80", "[::1"]) {
      const invalid = await exchange(healthz(`Host: ${host}\r\n`));
      assert.equal(invalid.status, "HTTP/1.1 400 Bad Request", host);
      assert.equal(invalid.body.error.code, "invalid_request", host);
      assert.match(invalid.body.error.message, /is not a host name or address/, host);
    }
    const chat = await exchange(
      chatPost(secret, JSON.stringify(chatBody("echo")), "Host: a b\r\n"),
    );
    assert.equal(chat.status, "HTTP/1.1 400 Bad Request");

    for (const host of ["127.0.0.1:8080", "[::1]:8080", "gateway.example.com", "x", ""]) {
      const valid = await exchange(healthz(`Host: ${host}\r\n`));
      assert.equal(valid.status, "HTTP/1.1 200 OK", host);
    }
  }));

Deno.test("http1: a 256 KiB body sent in 1-byte chunks is answered, as by a plain Hono app", () =>
  compared(async ({ secret, targets }) => {
    const text = "x".repeat(256 * 1024 - 64);
    const body = JSON.stringify(chatBody("echo", text));
    const chunks = Array.from(body, (char) => `1\r\n${char}\r\n`).join("") + "0\r\n\r\n";
    for (const [name, url] of targets) {
      // The runtime's reader of a chunked body moves what it buffered once a chunk: a loaded
      // machine may take long, and the guard only ends a read that never comes.
      const client = await rawConnect(url, 300_000);
      try {
        await client.send(chunkedHead(secret));
        client.sendAll(chunks);
        const answer = await client.answer();
        assert.equal(answer?.status, "HTTP/1.1 200 OK", `${name}: ${answer?.body.slice(0, 300)}`);
        assert.ok(answer.body.includes(text), name);
      } finally {
        client.close();
      }
    }
    // A body deadline far away: the answer cannot be a 408.
  }, "[timeouts]\nbody = 3600000"));

Deno.test("http1: chunked trailers are read; a trailer section past the runtime's 64 KiB is refused, never waited out", () =>
  withScope(async (s) => {
    // A body deadline far away: the refusal cannot be a 408.
    const { gateway, secret } = await echoGateway(s, "[timeouts]\nbody = 3600000");
    const body = JSON.stringify(chatBody("echo", "trailed"));
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n`;
    const line = `X-Trailer: ${"t".repeat(1_010)}\r\n`;

    const small = await rawConnect(gateway.url);
    try {
      await small.send(chunkedHead(secret) + chunked + line + "\r\n");
      const answer = await small.answer();
      assert.equal(answer?.status, "HTTP/1.1 200 OK", String(answer?.body));
      assert.match(answer.body, /"trailed"/);
    } finally {
      small.close();
    }

    // 1 MiB of trailer fields, as the probe sent them (hyper and Node refuse past 16 KiB).
    const large = await rawConnect(gateway.url);
    try {
      await large.send(chunkedHead(secret) + chunked);
      large.sendAll(line.repeat(1_024) + "\r\n");
      const answer = await large.answer();
      assert.equal(answer?.status, "HTTP/1.1 400 Bad Request", String(answer?.body));
      const { error } = JSON.parse(answer.body);
      assert.equal(error.code, "bad_request_body");
      assert.match(error.message, /trailer fields are malformed or larger than/);
    } finally {
      large.close();
    }
    // The gateway goes on serving.
    const ok = await gateway.post("/v1/chat/completions", secret, chatBody("echo", "after"));
    assert.equal(ok.status, 200, await ok.text());
  }));
