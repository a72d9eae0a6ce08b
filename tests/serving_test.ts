/**
 * What the runtime's server (`Deno.serve`'s own HTTP/1.1 server) must still do for tollgate,
 * sent byte for byte over a socket: `Expect: 100-continue` answered, a body declared over the
 * limit refused with its 413 before it is read, a body that stops coming ended by
 * `[timeouts] body`, and many idle connections that do not keep a new client waiting.
 */
import assert from "node:assert/strict";
import { channel, configWith } from "./harness.ts";
import { rawConnect } from "./raw_http.ts";
import { chatBody, withScope } from "./support.ts";

const ENCODER = new TextEncoder();

/** A gateway on the echo channel with `server` lines and a key. */
async function echoGateway(s: Parameters<Parameters<typeof withScope>[0]>[0], extra = "") {
  const gateway = await s.gateway(
    `${extra}\n${configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] }))}`,
  );
  const { secret } = await gateway.createKey();
  return { gateway, secret };
}

function head(secret: string, fields: string): string {
  return `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\n` +
    `Content-Type: application/json\r\n${fields}\r\n`;
}

Deno.test("serving: Expect: 100-continue gets 100 Continue, then the body's answer", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGateway(s);
    const body = JSON.stringify(chatBody("echo", "continued"));
    const client = await rawConnect(gateway.url);
    try {
      await client.send(
        head(secret, `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n`),
      );
      assert.match(await client.until("\r\n\r\n"), /^HTTP\/1\.1 100 Continue\r\n/);
      await client.send(body);
      const answer = await client.until('"continued"');
      assert.match(answer, /\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    } finally {
      client.close();
    }
  }));

Deno.test("serving: a body declared over max_body_bytes is 413 before a byte of it is sent", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGateway(s, "[server]\nmax_body_bytes = 4096");
    const client = await rawConnect(gateway.url);
    try {
      await client.send(head(secret, "Content-Length: 200000000\r\nExpect: 100-continue\r\n"));
      // The runtime's server may say 100 Continue first (hyper sends it as the body's
      // stream is made); the client has sent nothing of the body either way.
      const answer = await client.until("}}");
      assert.match(answer, /^(HTTP\/1\.1 100 Continue\r\n\r\n)?HTTP\/1\.1 413 /, answer);
      assert.match(answer, /"code":"request_too_large"/);
      assert.match(answer, /the limit is 4096 bytes \(\[server\] max_body_bytes\)/);
    } finally {
      client.close();
    }
  }));

Deno.test("serving: a body declared over the limit and sent anyway still gets its 413 and message", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGateway(s, "[server]\nmax_body_bytes = 4096");
    // fetch sends the whole 32 MB while the gateway answers: the client must read the 413,
    // not a reset connection.
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: new Uint8Array(32 * 1024 * 1024).fill(0x20),
    });
    assert.equal(response.status, 413);
    assert.match((await response.json()).error.message, /max_body_bytes/);
  }));

Deno.test("serving: a body that stops coming is 408 request_timeout after [timeouts] body", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGateway(s, "[timeouts]\nbody = 200");
    const client = await rawConnect(gateway.url);
    try {
      await client.send(head(secret, "Content-Length: 1000\r\n"));
      await client.send('{"model":"echo",');
      const answer = await client.until("}}");
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.match(answer, /"code":"request_timeout"/);
      assert.match(answer, /within 200 ms \(\[timeouts\] body\)/);
    } finally {
      client.close();
    }
    // The gateway goes on serving.
    const ok = await gateway.post("/v1/chat/completions", secret, chatBody("echo", "after"));
    assert.equal(ok.status, 200, await ok.text());
  }));

Deno.test("serving: a chunked body sent a byte at a time is read whole", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGateway(s);
    const body = JSON.stringify(chatBody("echo", "bytewise"));
    const client = await rawConnect(gateway.url);
    try {
      await client.send(head(secret, "Transfer-Encoding: chunked\r\n"));
      for (const byte of ENCODER.encode(body)) {
        await client.send(`1\r\n${String.fromCharCode(byte)}\r\n`);
      }
      await client.send("0\r\n\r\n");
      assert.match(await client.until('"bytewise"'), /^HTTP\/1\.1 200 OK\r\n/);
    } finally {
      client.close();
    }
  }));

Deno.test("serving: 3,000 idle connections do not keep a new request from being served", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGateway(s);
    const { hostname, port } = new URL(gateway.url);
    const idle: Deno.Conn[] = [];
    try {
      for (let i = 0; i < 3_000; i++) {
        idle.push(await Deno.connect({ hostname, port: Number(port) }));
      }
      // Half of them began a request and went quiet.
      for (const connection of idle.slice(0, 1_500)) {
        await connection.write(ENCODER.encode("POST /v1/chat/completions HTTP/1.1\r\n"));
      }
      const response = await gateway.post(
        "/v1/chat/completions",
        secret,
        chatBody("echo", "served"),
      );
      assert.equal(response.status, 200);
      assert.equal((await response.json()).choices[0].message.content, "served");
    } finally {
      for (const connection of idle) connection.close();
    }
  }));

Deno.test("serving: more header fields, or larger ones, than [server] allows are 431 naming the limit", () =>
  withScope(async (s) => {
    const { gateway, secret } = await echoGateway(
      s,
      "[server]\nmax_headers = 20\nmax_header_bytes = 2048",
    );
    const many: Record<string, string> = {};
    for (let i = 0; i < 30; i++) many[`x-field-${i}`] = "v";
    const counted = await gateway.post("/v1/messages", secret, chatBody("echo"), many);
    assert.equal(counted.status, 431);
    const countedBody = await counted.json();
    assert.equal(countedBody.error.type, "request_too_large");
    assert.match(countedBody.error.message, /over the limit of 20 \(\[server\] max_headers\)/);
    const large = await gateway.post("/v1/chat/completions", secret, chatBody("echo"), {
      "x-large": "a".repeat(3_000),
    });
    assert.equal(large.status, 431);
    assert.match((await large.json()).error.message, /\[server\] max_header_bytes/);
    const ok = await gateway.post("/v1/chat/completions", secret, chatBody("echo"));
    assert.equal(ok.status, 200, await ok.text());
  }));

Deno.test("serving: [server] tls_cert and tls_key serve HTTPS", () =>
  withScope(async (s) => {
    // The test certificate for 127.0.0.1, signed by the test CA (fixtures/tls/README.md).
    const tls = new URL("./fixtures/tls/", import.meta.url).pathname;
    const gateway = await s.gateway(
      `[server]\ntls_cert = "${tls}cert.pem"\ntls_key = "${tls}key.pem"\n` +
        configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
    );
    assert.match(gateway.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const { secret } = await gateway.createKey();
    const client = Deno.createHttpClient({ caCerts: [await Deno.readTextFile(`${tls}ca.pem`)] });
    try {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        client,
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify(chatBody("echo", "over tls")),
      });
      assert.equal(response.status, 200);
      assert.equal((await response.json()).choices[0].message.content, "over tls");
    } finally {
      client.close();
    }
  }));
