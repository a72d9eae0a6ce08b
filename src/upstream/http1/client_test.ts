/**
 * The HTTP/1.1 client against real sockets: scripted upstreams that write exactly the
 * bytes a test needs (keep-alive, closes, framing, interim answers, silence). Answers'
 * bodies, uploads and idle connections: client_answers_test.ts; TLS and proxies:
 * client_tls_proxy_test.ts.
 */
import assert from "node:assert/strict";
import { ConnectionClosed } from "./connection.ts";
import { answer, answerAll, scripted } from "../../../tests/fakes/scripted_upstream.ts";
import { post, withClient } from "./test_support.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

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
