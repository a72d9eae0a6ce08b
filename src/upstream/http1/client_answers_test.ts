/**
 * The HTTP/1.1 client's answers against scripted upstreams: bodies with their heads or
 * after, malformed and compressed answers, large bodies and uploads, idle connections.
 */
import assert from "node:assert/strict";
import { createHttpClient } from "./client.ts";
import { MalformedResponse } from "./head.ts";
import { answer, answerAll, scripted } from "../../../tests/fakes/scripted_upstream.ts";
import { post, settled, withClient } from "./test_support.ts";

const decoder = new TextDecoder();

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
