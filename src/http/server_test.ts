import assert from "node:assert/strict";
import type { Answer, AnswerStream, ByteSink } from "./answer.ts";
import { BodyRefused, type IncomingRequest } from "./incoming.ts";
import { type HttpServerOptions, serveHttp } from "./server.ts";
import type { StopSignal } from "../upstream/stop_signal.ts";

const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");

/** A server whose default handler answers what it read of each request, as JSON. */
function startServer(options: Partial<HttpServerOptions> = {}) {
  const server = serveHttp({
    hostname: "127.0.0.1",
    port: 0,
    handle: async (request) => {
      const body = request.method === "POST" ? latin1.decode(await request.body(1_000)) : "";
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          method: request.method,
          path: request.path,
          search: request.search,
          body,
          name: request.headers.get("x-name") ?? null,
        }),
      };
    },
    refuse: (status, message, path) => ({
      status,
      headers: { "content-type": "text/plain" },
      body: `refused: ${message} (${path ?? "no path"})`,
    }),
    ...options,
  });
  return server;
}

/** A raw connection to the server, reading what it answers as text. */
async function connect(port: number) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  let text = "";
  let ended = false;
  const buffer = new Uint8Array(65_536);
  return {
    send: (wire: string | Uint8Array) =>
      conn.write(typeof wire === "string" ? encoder.encode(wire) : wire),
    /** Reads until `done(text)` holds, or the server closed; returns all read so far. */
    async readUntil(done: (text: string) => boolean): Promise<string> {
      while (!ended && !done(text)) {
        const count = await conn.read(buffer).catch(() => null);
        if (count === null) ended = true;
        else text += latin1.decode(buffer.subarray(0, count));
      }
      return text;
    },
    /** Reads until the server closes the connection. */
    readAll(): Promise<string> {
      return this.readUntil(() => false);
    },
    get ended() {
      return ended;
    },
    close: () => {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    },
  };
}

/** How many whole answers with a JSON body `text` holds. */
const answers = (text: string) => text.split("HTTP/1.1 ").length - 1;
const bodies = (text: string) =>
  [...text.matchAll(/\r\n\r\n(\{[^\r]*?\})(?=HTTP|$)/g)].map((match) => JSON.parse(match[1]!));

Deno.test("http server: a kept-alive connection carries one request after another", async () => {
  const server = startServer();
  const client = await connect(server.addr.port);
  try {
    await client.send("GET /v1/models?after=x HTTP/1.1\r\nHost: t\r\nX-Name: first\r\n\r\n");
    const first = await client.readUntil((text) => text.endsWith("}"));
    assert.match(first, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(first, /\r\ndate: [A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} /);
    assert.doesNotMatch(first, /connection: close/);
    const length = Number(/content-length: (\d+)/.exec(first)![1]);
    assert.equal(encoder.encode(first.slice(first.indexOf("\r\n\r\n") + 4)).length, length);
    await client.send(
      'POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{"a":1}',
    );
    const all = await client.readAll();
    assert.deepEqual(bodies(all), [
      { method: "GET", path: "/v1/models", search: "?after=x", body: "", name: "first" },
      { method: "POST", path: "/v1/chat/completions", search: "", body: '{"a":1}', name: null },
    ]);
    assert.match(all.slice(first.length), /connection: close/);
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("http server: pipelined requests, empty lines between them, are answered in order", async () => {
  const server = startServer();
  const client = await connect(server.addr.port);
  try {
    await client.send(
      "POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\none\r\n" +
        "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n" +
        "GET /c HTTP/1.1\r\nConnection: close\r\n\r\n",
    );
    const all = await client.readAll();
    assert.equal(answers(all), 3);
    assert.deepEqual(bodies(all).map((body) => [body.path, body.body]), [
      ["/a", "one"],
      ["/b", "two"],
      ["/c", ""],
    ]);
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("http server: a chunked body arrives whole across writes, and one over the limit is refused", async () => {
  let refused: unknown;
  const server = startServer({
    handle: async (request) => {
      try {
        const body = await request.body(request.path === "/small" ? 4 : 1_000);
        return { status: 200, headers: {}, body: latin1.decode(body) };
      } catch (error) {
        refused = error;
        return { status: 413, headers: {}, body: "too large" };
      }
    },
  });
  const client = await connect(server.addr.port);
  try {
    await client.send("POST /big HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhel");
    await client.send("lo\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n");
    assert.match(await client.readUntil((text) => text.endsWith("hello world")), /200 OK/);
    await client.send("POST /small HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    const all = await client.readUntil((text) => text.endsWith("too large"));
    assert.match(all, /413 Content Too Large[^]*connection: close/);
    assert.ok(refused instanceof BodyRefused && refused.fault === "too_large");
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("http server: a body sent with its head is had at once; one sent after, once it comes", async () => {
  let headRead!: () => void;
  const headWasRead = new Promise<void>((resolve) => headRead = resolve);
  const server = startServer({
    handle: async (request) => {
      const body = request.body(100);
      const atOnce = !(body instanceof Promise);
      if (request.path === "/later") headRead();
      return { status: 200, headers: {}, body: `${atOnce} ${latin1.decode(await body)}` };
    },
  });
  const client = await connect(server.addr.port);
  try {
    await client.send("POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nfirst");
    assert.match(await client.readUntil((text) => text.endsWith("first")), /200 OK[^]*true first$/);
    await client.send("POST /later HTTP/1.1\r\nContent-Length: 6\r\n\r\n");
    await headWasRead;
    await client.send("second");
    const both = await client.readUntil((text) => text.endsWith("second"));
    assert.match(both, /true first[^]*200 OK[^]*false second$/);
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("http server: Expect: 100-continue gets its interim answer only when the body is read", async () => {
  const server = startServer({
    handle: async (request) => {
      if (request.path === "/refuse") return { status: 401, headers: {}, body: "no" };
      return { status: 200, headers: {}, body: latin1.decode(await request.body(100)) };
    },
  });
  const reading = await connect(server.addr.port);
  const refusing = await connect(server.addr.port);
  try {
    await reading.send("POST /read HTTP/1.1\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
    assert.equal(
      await reading.readUntil((text) => text.includes("\r\n\r\n")),
      "HTTP/1.1 100 Continue\r\n\r\n",
    );
    await reading.send("ok");
    assert.match(await reading.readUntil((text) => text.endsWith("ok")), /200 OK[^]*ok$/);

    await refusing.send(
      "POST /refuse HTTP/1.1\r\nContent-Length: 9\r\nExpect: 100-continue\r\n\r\n",
    );
    const answer = await refusing.readAll();
    assert.match(answer, /^HTTP\/1\.1 401 Unauthorized\r\n[^]*connection: close/);
    assert.doesNotMatch(answer, /100 Continue/);
  } finally {
    reading.close();
    refusing.close();
    await server.shutdown();
  }
});

Deno.test("http server: an unread body does not cost the client its answer", async () => {
  const server = startServer({
    handle: () => Promise.resolve({ status: 413, headers: {}, body: "too large" }),
  });
  const client = await connect(server.addr.port);
  try {
    const body = new Uint8Array(2_000_000).fill(0x61);
    await client.send(`POST /x HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n`);
    const sending = client.send(body).catch(() => {});
    const answer = await client.readAll();
    await sending;
    assert.match(
      answer,
      /^HTTP\/1\.1 413 Content Too Large\r\n[^]*connection: close[^]*too large$/,
    );
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("http server: malformed requests get the refusal, in the path's shape when it is known", async () => {
  const server = startServer();
  try {
    for (
      const [wire, expected] of [
        ["GARBAGE\r\n\r\n", /^HTTP\/1\.1 400 Bad Request\r\n[^]*\(no path\)$/],
        ["GET /x HTTP/2.0\r\n\r\n", /^HTTP\/1\.1 505 /],
        [
          "POST /v1/messages HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
          /^HTTP\/1\.1 400 [^]*\(\/v1\/messages\)$/,
        ],
        [
          "POST /v1/messages HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
          /^HTTP\/1\.1 200 /,
        ],
        [`GET /x HTTP/1.1\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`, /^HTTP\/1\.1 431 /],
      ] as const
    ) {
      const client = await connect(server.addr.port);
      await client.send(wire);
      const answer = await client.readAll();
      client.close();
      if (wire.includes("zz")) {
        // A body that is badly chunked reaches the handler as a refused read.
        assert.match(answer, /^HTTP\/1\.1 500 /, "the test handler lets the refusal through");
        continue;
      }
      assert.match(answer, expected, wire.slice(0, 60));
      assert.match(answer, /connection: close/);
    }
  } finally {
    await server.shutdown();
  }
});

/** A stream the test drives: it writes what `send` is given until `finish` (or cancel). */
function drivenStream() {
  const sent: Uint8Array[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  const cancelled = Promise.withResolvers<void>();
  const stream: AnswerStream = {
    async pipe(sink: ByteSink) {
      for (;;) {
        while (sent.length > 0) await sink.write(sent.shift()!);
        if (finished) return;
        await new Promise<void>((resolve) => wake = resolve);
      }
    },
    cancel: () => {
      cancelled.resolve();
      finished = true;
      wake?.();
    },
  };
  return {
    stream,
    cancelled: cancelled.promise,
    send(text: string) {
      sent.push(encoder.encode(text));
      wake?.();
    },
    finish() {
      finished = true;
      wake?.();
    },
  };
}

/** A handler answering /stream with `stream` and any other path with `whole`. */
function streamOr(stream: AnswerStream, whole: Answer) {
  return (request: IncomingRequest) =>
    Promise.resolve<Answer>(
      request.path === "/stream" ? { status: 200, headers: {}, body: stream } : whole,
    );
}

Deno.test("http server: whole answers at once, each of its own size, arrive whole and unmixed", async () => {
  // Each answer is its request's body: sizes around the write arrays' 16 KiB, pooled or not.
  const server = startServer({
    handle: async (request) => ({
      status: 200,
      headers: { "content-type": "text/plain" },
      body: await request.body(100_000),
    }),
  });
  const client = Deno.createHttpClient({});
  try {
    const url = `http://127.0.0.1:${server.addr.port}/echo`;
    for (let round = 0; round < 3; round++) {
      const bodies = [0, 1, 300, 16_000, 16_300, 16_384, 20_000, 70_000].flatMap((size, i) =>
        [0, 1, 2].map((k) => `${round}/${i}/${k}:${String(k).repeat(size)}`)
      );
      const answers = await Promise.all(
        bodies.map((body) =>
          fetch(url, { method: "POST", body, client }).then((response) => response.text())
        ),
      );
      assert.deepEqual(answers, bodies);
    }
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("http server: a stream's writes go out as chunks at once, and a fetch client reads them", async () => {
  const driven = drivenStream();
  const server = startServer({
    handle: () =>
      Promise.resolve({
        status: 200,
        headers: { "content-type": "text/event-stream" },
        body: driven.stream,
      }),
  });
  try {
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/stream`);
    assert.equal(response.headers.get("transfer-encoding"), "chunked");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    driven.send("data: one\n\n");
    assert.equal((await reader.read()).value, "data: one\n\n", "a write reaches the client alone");
    driven.send("data: two\n\n");
    assert.equal((await reader.read()).value, "data: two\n\n");
    driven.finish();
    assert.equal((await reader.read()).done, true, "the last chunk ends the body");
  } finally {
    await server.shutdown();
  }
});

Deno.test("http server: a stream's last write carries the end of the body; the connection carries the next request", async () => {
  const stream: AnswerStream = {
    async pipe(sink: ByteSink) {
      await sink.write(encoder.encode("data: one\n\n"));
      await sink.last(encoder.encode("data: end\n\n"));
    },
    cancel: () => {},
  };
  const server = startServer({
    handle: (request: IncomingRequest) =>
      Promise.resolve<Answer>(
        request.path === "/stream"
          ? { status: 200, headers: {}, body: stream }
          : { status: 200, headers: {}, body: "{}" },
      ),
  });
  const client = await connect(server.addr.port);
  try {
    await client.send("GET /stream HTTP/1.1\r\n\r\n");
    const streamed = await client.readUntil((text) => text.endsWith("0\r\n\r\n"));
    assert.ok(
      streamed.endsWith("\r\n\r\nb\r\ndata: one\n\n\r\nb\r\ndata: end\n\n\r\n0\r\n\r\n"),
      streamed,
    );
    // A second end of the body would be read as the start of the next answer.
    await client.send("GET /whole HTTP/1.1\r\nConnection: close\r\n\r\n");
    const next = (await client.readAll()).slice(streamed.length);
    assert.match(next, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(next.endsWith("\r\n\r\n{}"), next);
  } finally {
    client.close();
    await server.shutdown();
  }
});

Deno.test("http server: a client that goes away aborts its request's signal and cancels its stream", async () => {
  const driven = drivenStream();
  const signals: StopSignal[] = [];
  const server = startServer({
    handle: (request: IncomingRequest) => {
      signals.push(request.signal);
      return Promise.resolve({ status: 200, headers: {}, body: driven.stream } as Answer);
    },
  });
  const client = await connect(server.addr.port);
  try {
    await client.send("GET /stream HTTP/1.1\r\n\r\n");
    driven.send("data: one\n\n");
    await client.readUntil((text) => text.includes("data: one"));
    assert.equal(signals[0]!.aborted, false);
    client.close();
    await driven.cancelled;
    assert.equal(signals[0]!.aborted, true);
  } finally {
    await server.shutdown();
  }
});

Deno.test("http server: HTTP/1.0 gets its answer and a closed connection; HEAD gets no body", async () => {
  const driven = drivenStream();
  const server = startServer({
    handle: streamOr(driven.stream, {
      status: 200,
      headers: { "content-type": "text/plain" },
      body: "hello",
    }),
  });
  try {
    const old = await connect(server.addr.port);
    await old.send("GET /whole HTTP/1.0\r\n\r\n");
    const whole = await old.readAll();
    old.close();
    assert.match(
      whole,
      /^HTTP\/1\.1 200 OK\r\n[^]*content-length: 5\r\nconnection: close\r\n\r\nhello$/,
    );

    const oldStream = await connect(server.addr.port);
    await oldStream.send("GET /stream HTTP/1.0\r\n\r\n");
    driven.send("data: x\n\n");
    driven.finish();
    const streamed = await oldStream.readAll();
    oldStream.close();
    assert.doesNotMatch(streamed, /transfer-encoding/, "HTTP/1.0 has no chunks");
    assert.match(streamed, /connection: close\r\n\r\ndata: x\n\n$/);

    const head = await connect(server.addr.port);
    await head.send("HEAD /whole HTTP/1.1\r\nConnection: close\r\n\r\n");
    const headOnly = await head.readAll();
    head.close();
    assert.match(headOnly, /content-length: 5\r\nconnection: close\r\n\r\n$/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("http server: an idle kept-alive connection, or a request that stalls, is closed after its timeout", async () => {
  const server = startServer({ timeouts: { keepAlive: 20, request: 20 } });
  try {
    const idle = await connect(server.addr.port);
    await idle.send("GET /x HTTP/1.1\r\n\r\n");
    assert.equal(answers(await idle.readAll()), 1, "answered, then closed once idle");
    assert.equal(idle.ended, true);
    idle.close();

    const stalled = await connect(server.addr.port);
    await stalled.send("GET /x HTTP/1.1\r\nHost: t\r\n");
    assert.equal(await stalled.readAll(), "", "a head that never ends is dropped");
    stalled.close();

    const stalledBody = await connect(server.addr.port);
    await stalledBody.send("POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\nhalf");
    assert.doesNotMatch(await stalledBody.readAll(), /200 OK/, "a body that stops is never taken");
    stalledBody.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("http server: shutdown closes connections between requests, lets a stream finish, and refuses new ones", async () => {
  const driven = drivenStream();
  const server = startServer({
    handle: streamOr(driven.stream, { status: 200, headers: {}, body: "whole" }),
  });
  const { port } = server.addr;
  const idle = await connect(port);
  const partial = await connect(port);
  const streaming = await connect(port);
  try {
    await idle.send("GET /whole HTTP/1.1\r\n\r\n");
    await idle.readUntil((text) => text.endsWith("whole"));
    await partial.send("GET /whole HTTP/1.1\r\nHost: t\r\n");
    await streaming.send("GET /stream HTTP/1.1\r\n\r\n");
    driven.send("data: one\n\n");
    await streaming.readUntil((text) => text.includes("data: one"));

    const stopped = server.shutdown();
    assert.match(await idle.readAll(), /whole$/, "the idle connection is closed at once");
    assert.equal(await partial.readAll(), "", "so is one whose next head has only begun");
    await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }));
    driven.send("data: two\n\n");
    driven.finish();
    const streamed = await streaming.readAll();
    assert.match(streamed, /data: two\n\n\r\n0\r\n\r\n$/, "the stream ends whole");
    await stopped;
    await server.finished;
  } finally {
    idle.close();
    partial.close();
    streaming.close();
    await server.shutdown();
  }
});
