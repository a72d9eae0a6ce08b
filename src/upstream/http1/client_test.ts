/**
 * The HTTP/1.1 client against real sockets: scripted upstreams that write exactly the
 * bytes a test needs (keep-alive, closes, framing, interim answers, silence), and a TLS
 * server with a certificate of its own.
 */
import assert from "node:assert/strict";
import { createHttpClient, type HttpClient } from "./client.ts";
import { ConnectionClosed } from "./connection.ts";
import { MalformedResponse } from "./head.ts";
import { UpstreamFailure } from "../call.ts";
import { answer, answerAll, peerOf, scripted } from "../../../tests/fakes/scripted_upstream.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

const post = (
  client: HttpClient,
  url: string,
  body = "{}",
  signal = new AbortController().signal,
) =>
  client.post({ url, headers: { "content-type": "application/json" }, body }, {
    signal,
    connectMs: 5_000,
  });

/** Runs `test` with a client, closing it (and its idle connections) afterwards. */
async function withClient(
  test: (client: HttpClient) => Promise<void>,
  options: { caCerts?: string[]; env?: Record<string, string>; maxIdleMs?: number } = {},
) {
  const env = options.env ?? {};
  const client = createHttpClient({
    caCerts: options.caCerts,
    env: (name) => env[name],
    maxIdleMs: options.maxIdleMs,
  });
  try {
    await test(client);
  } finally {
    client.close();
  }
}

Deno.test("http1: requests in turn share one keep-alive connection", async () => {
  const upstream = scripted(answerAll);
  await withClient(async (client) => {
    for (let n = 1; n <= 3; n++) {
      const response = await post(client, upstream.url, `{"ask":${n}}`);
      assert.equal(response.status, 200);
      assert.equal(response.header("content-type"), "application/json");
      assert.equal(await response.text(), `{"n":${n}}`);
    }
    assert.equal(upstream.accepted(), 1);
    assert.deepEqual(upstream.requests, ['{"ask":1}', '{"ask":2}', '{"ask":3}']);
  });
  await upstream.close();
});

Deno.test("http1: requests at once each get a connection, then reuse them", async () => {
  const upstream = scripted(answerAll);
  await withClient(async (client) => {
    const first = await Promise.all([1, 2, 3].map(() => post(client, upstream.url)));
    await Promise.all(first.map((response) => response.text()));
    assert.equal(upstream.accepted(), 3);
    const second = await Promise.all([1, 2, 3].map(() => post(client, upstream.url)));
    assert.deepEqual(await Promise.all(second.map((response) => response.text())), [
      '{"n":2}',
      '{"n":2}',
      '{"n":2}',
    ]);
    assert.equal(upstream.accepted(), 3);
  });
  await upstream.close();
});

Deno.test("http1: requests at once, each with a body of its own size, arrive whole and unmixed", async () => {
  const upstream = scripted(answerAll);
  await withClient(async (client) => {
    // Around the write arrays' size (16 KiB): pooled arrays, and arrays of their own.
    const sizes = [0, 1, 100, 600, 16_000, 16_300, 16_384, 20_000, 70_000];
    for (let round = 0; round < 3; round++) {
      const bodies = sizes.flatMap((size, i) =>
        [0, 1, 2].map((k) => JSON.stringify({ round, i, k, pad: "x".repeat(size) }))
      );
      const responses = await Promise.all(bodies.map((body) => post(client, upstream.url, body)));
      await Promise.all(responses.map((response) => response.text()));
      assert.deepEqual(upstream.requests.slice(-bodies.length).sort(), [...bodies].sort());
    }
  });
  await upstream.close();
});

Deno.test("http1: a connection the upstream closed after its answer is not used again", async () => {
  const upstream = scripted(async (peer) => {
    if (!(await peer.request())) return;
    await peer.write(answer('{"ok":true}'));
    peer.close();
  });
  await withClient(async (client) => {
    assert.equal(await (await post(client, upstream.url)).text(), '{"ok":true}');
    assert.equal(await (await post(client, upstream.url)).text(), '{"ok":true}');
    assert.equal(upstream.accepted(), 2);
  });
  await upstream.close();
});

Deno.test("http1: a request the upstream drops with its idle connection goes again, once", async () => {
  // The first connection answers once, then closes as the second request arrives (an
  // upstream's keep-alive timeout racing the request): nothing of an answer came back.
  const upstream = scripted(async (peer, index) => {
    if (index === 0) {
      await peer.request();
      await peer.write(answer('{"on":"first"}'));
      await peer.request();
      return peer.close();
    }
    await answerAll(peer);
  });
  await withClient(async (client) => {
    assert.equal(await (await post(client, upstream.url, "1")).text(), '{"on":"first"}');
    assert.equal(await (await post(client, upstream.url, "2")).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 2);
    assert.deepEqual(upstream.requests, ["1", "2", "2"]);
  });
  await upstream.close();
});

Deno.test("http1: a new connection closed before any answer fails, without a second try", async () => {
  const upstream = scripted(async (peer) => {
    await peer.request();
    peer.close();
  });
  await withClient(async (client) => {
    await assert.rejects(post(client, upstream.url), ConnectionClosed);
    assert.equal(upstream.accepted(), 1);
  });
  await upstream.close();
});

Deno.test("http1: a body until close, and Connection: close, end their connection", async () => {
  const upstream = scripted(async (peer, index) => {
    await peer.request();
    if (index === 0) {
      await peer.write(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it, until the end",
      );
    } else {
      await peer.write(answer("closing", "Connection: close\r\n"));
    }
    peer.close();
  });
  await withClient(async (client) => {
    assert.equal(await (await post(client, upstream.url)).text(), "all of it, until the end");
    assert.equal(await (await post(client, upstream.url)).text(), "closing");
    assert.equal(await (await post(client, upstream.url)).text(), "closing");
    assert.equal(upstream.accepted(), 3, "no connection was reused");
  });
  await upstream.close();
});

Deno.test("http1: a chunked stream is handed out as it arrives, then the connection is reused", async () => {
  const firstRead = Promise.withResolvers<void>();
  const upstream = scripted(async (peer) => {
    await peer.request();
    await peer.write(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "d\r\ndata: first\n\n\r\n",
    );
    // The second event goes out only once the client has read the first.
    await firstRead.promise;
    await peer.write("e\r\ndata: second\n\n\r\n0\r\n\r\n");
    await answerAll(peer);
  });
  await withClient(async (client) => {
    const response = await post(client, upstream.url);
    assert.equal(response.header("transfer-encoding"), "chunked");
    const body = response.body!;
    assert.equal(decoder.decode(await body.read()), "data: first\n\n");
    firstRead.resolve();
    assert.equal(decoder.decode(await body.read()), "data: second\n\n");
    assert.equal(await body.read(), undefined);
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 1);
  });
  await upstream.close();
});

Deno.test("http1: chunks that arrive in one network read are handed out as one read, in order", async () => {
  const upstream = scripted(async (peer) => {
    await peer.request();
    await peer.write(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "7\r\ndata: a\r\n2;x=y\r\n\n\n\r\na\r\ndata: bc\n\n\r\n0\r\n\r\n",
    );
    await answerAll(peer);
  });
  await withClient(async (client) => {
    const body = (await post(client, upstream.url)).body!;
    let text = "";
    for (let bytes = await body.read(); bytes; bytes = await body.read()) {
      text += decoder.decode(bytes);
    }
    assert.equal(text, "data: a\n\ndata: bc\n\n");
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 1, "the body ended exactly: its connection is reused");
  });
  await upstream.close();
});

Deno.test("http1: a stream that waits in the socket is read in larger reads once one fills the buffer", async () => {
  // ~10 KB of events written at once, after the head: more than one small read takes.
  const events = Array.from({ length: 100 }, (_, n) => `data: ${String(n).padStart(90, "-")}\n\n`);
  const upstream = scripted(async (peer) => {
    await peer.request();
    await peer.write(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
        events.map((event) => `${event.length.toString(16)}\r\n${event}\r\n`).join("") +
        "0\r\n\r\n",
    );
    await answerAll(peer);
  });
  await withClient(async (client) => {
    const body = (await post(client, upstream.url)).body!;
    const reads: string[] = [];
    const ended: (boolean | undefined)[] = [];
    for (let bytes = await body.read(); bytes; bytes = await body.read()) {
      reads.push(decoder.decode(bytes));
      ended.push(body.ended);
    }
    assert.equal(reads.join(""), events.join(""));
    // What the head's 4 KiB read brought, then the rest in one read (4 KiB reads take three).
    assert.equal(reads.length, 2, `${reads.length} reads`);
    // The read that held the body's end says so: a relay ends its client's body with it.
    assert.deepEqual(ended, [false, true]);
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 1);
  });
  await upstream.close();
});

Deno.test("http1: an abort ends a silent stream at once with its reason and closes the connection", async () => {
  const closedByClient = Promise.withResolvers<void>();
  const upstream = scripted(async (peer) => {
    await peer.request();
    await peer.write(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\ndata: a\n\n\r\n",
    );
    // Silence: the next request() returns only when the client closes the connection.
    assert.equal(await peer.request(), undefined);
    closedByClient.resolve();
  });
  await withClient(async (client) => {
    const controller = new AbortController();
    const response = await post(client, upstream.url, "{}", controller.signal);
    assert.equal(decoder.decode(await response.body!.read()), "data: a\n\n");
    const reading = response.body!.read();
    const reason = new Error("the client went away");
    controller.abort(reason);
    await assert.rejects(reading, (error) => error === reason);
    await closedByClient.promise;
  });
  await upstream.close();
});

Deno.test("http1: interim 1xx answers are skipped; an answer split byte by byte is read whole", async () => {
  const upstream = scripted(async (peer) => {
    await peer.request();
    const wire = encoder.encode(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" +
        "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-Id: 7\r\n\r\n" +
        "3\r\nabc\r\n4;ext=1\r\ndefg\r\n0\r\nTrailer: x\r\n\r\n",
    );
    for (let i = 0; i < wire.byteLength; i++) await peer.write(wire.subarray(i, i + 1));
    await answerAll(peer);
  });
  await withClient(async (client) => {
    const response = await post(client, upstream.url);
    assert.equal(response.status, 201);
    assert.equal(response.header("x-id"), "7");
    assert.equal(await response.text(), "abcdefg");
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 1, "the framing ended exactly: the connection was reused");
  });
  await upstream.close();
});

Deno.test("http1: a body that came with its head is read, and one that comes after it", async () => {
  let headRead!: () => void;
  const headWasRead = new Promise<void>((resolve) => headRead = resolve);
  const upstream = scripted(async (peer) => {
    await peer.request();
    await peer.write(answer('{"n":1}'));
    await peer.request();
    const late = answer('{"n":2}');
    const split = late.indexOf("\r\n\r\n") + 4;
    await peer.write(late.slice(0, split));
    // The body goes only once the client holds the head and asked for the body.
    await headWasRead;
    await peer.write(late.slice(split));
    await answerAll(peer);
  });
  await withClient(async (client) => {
    const whole = await (await post(client, upstream.url)).bytes();
    assert.equal(decoder.decode(whole), '{"n":1}');
    const later = (await post(client, upstream.url)).bytes();
    headRead();
    assert.equal(decoder.decode(await later), '{"n":2}');
    assert.equal(decoder.decode(await (await post(client, upstream.url)).bytes()), '{"n":1}');
    assert.equal(upstream.accepted(), 1, "each body ended exactly: the connection was reused");
  });
  await upstream.close();
});

Deno.test("http1: a malformed answer fails and its connection is never reused", async () => {
  const upstream = scripted(async (peer, index) => {
    if (index > 0) return await answerAll(peer);
    await peer.request();
    await peer.write("HTTP/1.1 200 OK\r\nContent-Length: lots\r\n\r\n{}");
  });
  await withClient(async (client) => {
    await assert.rejects(post(client, upstream.url), MalformedResponse);
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 2);
  });
  await upstream.close();
});

Deno.test("http1: a header that would break the request's head is refused before sending", async () => {
  const upstream = scripted(answerAll);
  await withClient(async (client) => {
    const bad: Record<string, string>[] = [{ "x-a": "1\r\nx-injected: 2" }, { "bad name": "1" }];
    for (const headers of bad) {
      await assert.rejects(
        client.post({ url: upstream.url, headers, body: "{}" }, {
          signal: new AbortController().signal,
          connectMs: 1_000,
        }),
        TypeError,
      );
    }
    assert.equal(upstream.accepted(), 0);
  });
  await upstream.close();
});

Deno.test("http1: large bodies both ways arrive exactly, multi-byte characters included", async () => {
  const big = JSON.stringify({ text: "héllo wörld ✓ ".repeat(40_000) });
  const upstream = scripted(async (peer) => {
    const request = await peer.request();
    await peer.write(answer(request!.body));
  });
  await withClient(async (client) => {
    const response = await post(client, upstream.url, big);
    assert.equal(await response.text(), big);
    assert.equal(upstream.requests[0], big);
  });
  await upstream.close();
});

Deno.test("http1: https to an upstream whose certificate is trusted, refused otherwise", async () => {
  const upstream = await tlsUpstream();
  const url = `https://localhost:${upstream.port}/v1/messages`;
  try {
    await withClient(async (client) => {
      const response = await post(client, url, '{"hi":1}');
      assert.equal(response.status, 200);
      assert.deepEqual(JSON.parse(await response.text()), { echoed: { hi: 1 } });
    }, { caCerts: [upstream.ca] });
    await withClient(async (client) => {
      await assert.rejects(post(client, url));
    });
  } finally {
    await upstream.stop();
  }
});

/** An https upstream with the test CA's certificate; its port, the CA, requests served, a stop. */
async function tlsUpstream() {
  const fixtures = new URL("../../../tests/fixtures/tls/", import.meta.url);
  const read = (name: string) => Deno.readTextFile(new URL(name, fixtures));
  const [cert, key, ca] = await Promise.all([read("cert.pem"), read("key.pem"), read("ca.pem")]);
  const { promise: listening, resolve } = Promise.withResolvers<Deno.NetAddr>();
  const served = { count: 0 };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen: resolve },
    async (request) => {
      served.count++;
      return Response.json({ echoed: await request.json() });
    },
  );
  return { port: (await listening).port, ca, served, stop: () => server.shutdown() };
}

/**
 * A CONNECT proxy that tunnels to 127.0.0.1 and records each CONNECT head; `beforeAnswer`
 * runs between a CONNECT arriving and its answer.
 */
function tunnellingProxy(beforeAnswer: () => Promise<void> = () => Promise.resolve()) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const open: Deno.Conn[] = [];
  const serving = (async () => {
    const tunnels: Promise<unknown>[] = [];
    for await (const client of listener) {
      open.push(client);
      const peer = peerOf(client, []);
      tunnels.push(
        (async () => {
          const request = await peer.request();
          if (!request) return;
          heads.push(request.head);
          await beforeAnswer();
          const port = Number(/^CONNECT [^ ]+:(\d+) /.exec(request.head)![1]);
          const target = await Deno.connect({ hostname: "127.0.0.1", port });
          open.push(target);
          try {
            await peer.write("HTTP/1.1 200 Connection established\r\n\r\n");
            await Promise.allSettled([
              client.readable.pipeTo(target.writable),
              target.readable.pipeTo(client.writable),
            ]);
          } finally {
            // A tunnel opened after close() (its client gone) must not outlive the proxy.
            try {
              target.close();
            } catch { /* closed by its pipe */ }
          }
        })().catch(() => {}),
      );
    }
    await Promise.all(tunnels);
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    heads,
    async close() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
      await serving;
    },
  };
}

Deno.test("http1: https through HTTPS_PROXY goes in a CONNECT tunnel, with the proxy's credentials", async () => {
  const upstream = await tlsUpstream();
  const proxy = tunnellingProxy();
  const proxyUrl = proxy.url.replace("http://", "http://user:secret@");
  try {
    await withClient(async (client) => {
      for (const n of [1, 2]) {
        const response = await post(
          client,
          `https://localhost:${upstream.port}/v1/x`,
          `{"n":${n}}`,
        );
        assert.deepEqual(JSON.parse(await response.text()), { echoed: { n } });
      }
    }, { caCerts: [upstream.ca], env: { HTTPS_PROXY: proxyUrl } });
    assert.equal(proxy.heads.length, 1, "the tunnel is kept alive for the second request");
    assert.match(proxy.heads[0]!, new RegExp(`^CONNECT localhost:${upstream.port} HTTP/1.1\r\n`));
    assert.match(proxy.heads[0]!, /\r\nproxy-authorization: Basic dXNlcjpzZWNyZXQ=/);
  } finally {
    await proxy.close();
    await upstream.stop();
  }
});

Deno.test("http1: http through HTTP_PROXY in absolute form, and NO_PROXY hosts directly", async () => {
  const proxy = scripted(async (peer) => {
    for (let request = await peer.request(); request; request = await peer.request()) {
      await peer.write(answer(JSON.stringify(request.head.split("\r\n")[0])));
    }
  });
  const direct = scripted(answerAll);
  try {
    await withClient(async (client) => {
      const proxied = await post(client, "http://llm.internal:8000/v1/chat/completions?x=1");
      assert.equal(
        JSON.parse(await proxied.text()),
        "POST http://llm.internal:8000/v1/chat/completions?x=1 HTTP/1.1",
      );
      assert.equal(await (await post(client, direct.url)).text(), '{"n":1}');
    }, {
      env: { HTTP_PROXY: new URL(proxy.url).host, NO_PROXY: "127.0.0.1" },
    });
    assert.equal(proxy.accepted(), 1);
    assert.equal(direct.accepted(), 1);
  } finally {
    await proxy.close();
    await direct.close();
  }
});

/** `text` compressed as `format` (the test's upstream compresses what tollgate did not ask). */
async function compressed(text: string, format: CompressionFormat | "brotli") {
  const stream = new Blob([text]).stream().pipeThrough(
    new CompressionStream(format as CompressionFormat),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("http1: an answer without a body that names a content coding reads as empty", async () => {
  const upstream = scripted(async (peer) => {
    await peer.request();
    await peer.write("HTTP/1.1 204 No Content\r\nContent-Encoding: gzip\r\n\r\n");
    await answerAll(peer);
  });
  await withClient(async (client) => {
    const response = await post(client, upstream.url);
    assert.equal(response.status, 204);
    assert.equal(response.body, null);
    assert.equal(await response.text(), "");
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 1, "the connection carries the next request");
  });
  await upstream.close();
});

Deno.test("http1: an answer compressed anyway is decoded; an unknown coding is refused", async () => {
  const answerText = JSON.stringify({ text: "héllo ".repeat(500) });
  const gzip = await compressed(answerText, "gzip");
  const brotli = await compressed("data: first\n\ndata: second\n\n", "brotli");
  const upstream = scripted(async (peer, index) => {
    await peer.request();
    if (index === 0) {
      await peer.write(
        `HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gzip.byteLength}\r\n\r\n`,
      );
      await peer.write(gzip);
      await peer.request();
      // A compressed stream, chunked, split in the middle of the compressed bytes.
      await peer.write(
        "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nTransfer-Encoding: chunked\r\n\r\n",
      );
      const half = Math.floor(brotli.byteLength / 2);
      for (const part of [brotli.subarray(0, half), brotli.subarray(half)]) {
        await peer.write(`${part.byteLength.toString(16)}\r\n`);
        await peer.write(part);
        await peer.write("\r\n");
      }
      await peer.write("0\r\n\r\n");
      return void await answerAll(peer);
    }
    await peer.write("HTTP/1.1 200 OK\r\nContent-Encoding: zstd\r\nContent-Length: 2\r\n\r\n{}");
  });
  await withClient(async (client) => {
    assert.equal(await (await post(client, upstream.url)).text(), answerText);
    const stream = await post(client, upstream.url);
    let text = "";
    for (let chunk = await stream.body!.read(); chunk; chunk = await stream.body!.read()) {
      text += decoder.decode(chunk, { stream: true });
    }
    assert.equal(text, "data: first\n\ndata: second\n\n");
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}', "kept alive");
    assert.equal(upstream.accepted(), 1);
  });
  await withClient(async (client) => {
    await assert.rejects(post(client, upstream.url), MalformedResponse);
  });
  await upstream.close();
});

/**
 * `promise`, or a failure once `ms` passed: a regression that leaves a request waiting
 * fails its test instead of hanging the suite (passing never depends on this timer).
 */
async function settled<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still waiting after ${ms} ms.`)), ms);
  });
  try {
    return await Promise.race([promise, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

/** Posts to `url` with a 50 ms connect timeout and asserts that it fails as a timeout. */
async function assertConnectTimeout(client: HttpClient, url: string): Promise<void> {
  const posting = client.post({ url, headers: {}, body: "{}" }, {
    signal: new AbortController().signal,
    connectMs: 50,
  });
  const failure = await settled(posting).catch((error) => error);
  assert.ok(failure instanceof UpstreamFailure, String(failure));
  assert.equal(failure.kind, "timeout");
}

/** A request body larger than the sockets' buffers on both sides: it cannot go out at once. */
const LARGE_BODY = JSON.stringify({ text: "x".repeat(32 << 20) });

Deno.test("http1: an answer to a large upload sent before reading it all (a 413), then a close, is the answer", async () => {
  const refusal = '{"error":{"message":"Request too large"}}';
  const upstream = scripted(async (peer) => {
    await peer.head();
    // The upstream closes with the body unread: its socket resets, and the upload fails.
    await peer.write(
      `HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\nContent-Length: ${refusal.length}\r\n\r\n${refusal}`,
    );
    peer.close();
  });
  await withClient(async (client) => {
    const response = await post(client, upstream.url, LARGE_BODY);
    assert.equal(response.status, 413);
    assert.equal(await response.text(), refusal);
  });
  await upstream.close();
});

Deno.test("http1: an answer sent while the upstream stops reading the request is not stuck behind the upload", async () => {
  const answered = Promise.withResolvers<void>();
  const upstream = scripted(async (peer, index) => {
    if (index > 0) return await answerAll(peer);
    await peer.head();
    // Answered, kept open, never read: the upload can neither finish nor fail.
    await peer.write(answer('{"refused":true}'));
    await answered.promise;
    peer.close();
  });
  await withClient(async (client) => {
    const response = await settled(post(client, upstream.url, LARGE_BODY));
    assert.equal(await response.text(), '{"refused":true}');
    answered.resolve();
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 2, "a connection whose request was cut short is not reused");
  });
  answered.resolve();
  await upstream.close();
});

Deno.test("http1: a kept-alive connection the upstream drops as a large request goes out: the request goes again", async () => {
  const upstream = scripted(async (peer, index) => {
    if (index > 0) return await answerAll(peer);
    await peer.request();
    await peer.write(answer('{"on":"first"}'));
    // The keep-alive timeout races the next request: closed with its body unread (a reset).
    await peer.head();
    peer.close();
  });
  await withClient(async (client) => {
    assert.equal(await (await post(client, upstream.url)).text(), '{"on":"first"}');
    assert.equal(await (await post(client, upstream.url, LARGE_BODY)).text(), '{"n":1}');
    assert.equal(upstream.accepted(), 2);
    assert.equal(upstream.requests.at(-1), LARGE_BODY);
  });
  await upstream.close();
});

Deno.test("http1: a proxy that never answers the CONNECT is a connect timeout, and its socket closes", async () => {
  const closed = Promise.withResolvers<void>();
  const proxy = scripted(async (peer) => {
    await peer.request();
    assert.equal(await peer.request(), undefined);
    closed.resolve();
  });
  await withClient(async (client) => {
    await assertConnectTimeout(client, "https://llm.example:443/v1/messages");
    await settled(closed.promise);
  }, { env: { HTTPS_PROXY: proxy.url.replace(/\/v1\/.*$/, "") } });
  await proxy.close();
});

Deno.test("http1: an abort while the proxy opens the tunnel ends the request; a tunnel opened later is not used", async () => {
  const upstream = await tlsUpstream();
  const connectSeen = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const proxy = tunnellingProxy(() => {
    connectSeen.resolve();
    return gate.promise;
  });
  try {
    await withClient(async (client) => {
      const controller = new AbortController();
      const posting = post(
        client,
        `https://localhost:${upstream.port}/v1/x`,
        "{}",
        controller.signal,
      );
      await connectSeen.promise;
      const reason = new Error("the client went away");
      controller.abort(reason);
      gate.resolve();
      await assert.rejects(posting, (error) => error === reason);
    }, { caCerts: [upstream.ca], env: { HTTPS_PROXY: proxy.url } });
  } finally {
    gate.resolve();
    await proxy.close();
    await upstream.stop();
  }
  assert.equal(upstream.served.count, 0, "the request never went out");
});

Deno.test("http1: a TLS handshake the upstream never answers is a connect timeout", async () => {
  const done = Promise.withResolvers<void>();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    const conn = await listener.accept();
    // The client's hello, then silence until the test is over. (Deno keeps a socket whose
    // handshake was cut short open until its peer closes it: only the wait can end here.)
    await conn.read(new Uint8Array(65_536)).catch(() => null);
    await done.promise;
    conn.close();
  })();
  await withClient(async (client) => {
    await assertConnectTimeout(
      client,
      `https://localhost:${(listener.addr as Deno.NetAddr).port}/v1/messages`,
    );
  });
  done.resolve();
  listener.close();
  await serving;
});

Deno.test("http1: an idle connection is closed once idle too long, though no request comes", async () => {
  const closed = Promise.withResolvers<void>();
  const upstream = scripted(async (peer) => {
    await answerAll(peer);
    closed.resolve();
  });
  await withClient(async (client) => {
    assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
    // Nothing else is asked: only the client's own sweep can close the connection.
    await settled(closed.promise);
  }, { maxIdleMs: 20 });
  await upstream.close();
});

Deno.test("http1: a connection whose answer ends after close() is closed, not kept idle", async () => {
  const closed = Promise.withResolvers<void>();
  const upstream = scripted(async (peer) => {
    await answerAll(peer);
    closed.resolve();
  });
  const client = createHttpClient({ env: () => undefined });
  const response = await post(client, upstream.url);
  client.close();
  assert.equal(await response.text(), '{"n":1}');
  try {
    await settled(closed.promise);
  } finally {
    client.close();
    await upstream.close();
  }
});
