/**
 * The bounds on what an upstream answers, against scripted raw-socket upstreams: a whole
 * answer over max_answer_bytes (by its Content-Length, chunked, until close, inflated), one
 * SSE event over it, a head over max_answer_head_bytes, a chunk's extensions and a trailer
 * section over theirs. Each is a failure, and the connection it came on is never reused:
 * the upstream's first connection would answer `{"reused":true}` to a second request.
 */
import assert from "node:assert/strict";
import { createHttpClient, type HttpClient } from "./client.ts";
import { MalformedResponse } from "./head.ts";
import { type AnswerLimits, answerLimits } from "./limits.ts";
import { UpstreamFailure } from "../call.ts";
import { readSseBatches } from "../sse.ts";
import { answer, answerAll, type Peer, scripted } from "../../../tests/fakes/scripted_upstream.ts";

const CHUNKED =
  "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
const SSE =
  "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

/** A chunk of `text` (ASCII), framed. */
const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;

/**
 * An upstream whose first connection runs `broken` for its first request and answers
 * `{"reused":true}` to any request after it; later connections answer `{"n":1}`, ...
 */
function brokenFirst(broken: (peer: Peer) => Promise<void>) {
  return scripted(async (peer, index) => {
    if (index > 0) return await answerAll(peer);
    if (!(await peer.request())) return;
    await broken(peer);
    while (await peer.request()) await peer.write(answer('{"reused":true}'));
  });
}

/** Writes `wire`, then holds the connection open until the client closes it. */
const writeAndHold = (wire: string | Uint8Array) => async (peer: Peer) => {
  await peer.write(wire);
  await peer.request();
};

/**
 * Writes `wire` (an answer cut short) and closes: a client that waited for the end before
 * measuring fails with the close instead of the bound.
 */
const writeAndClose = (wire: string) => async (peer: Peer) => {
  await peer.write(wire);
  peer.close();
};

const post = (client: HttpClient, url: string, limits?: Readonly<AnswerLimits>) =>
  client.post({ url, headers: { "content-type": "application/json" }, body: "{}" }, {
    signal: new AbortController().signal,
    connectMs: 5_000,
    limits,
  });

/** Runs `test` with a client of `limits`, closing it and `upstream` afterwards. */
async function withClient(
  upstream: ReturnType<typeof scripted>,
  limits: Partial<AnswerLimits>,
  test: (client: HttpClient) => Promise<void>,
) {
  const client = createHttpClient({ env: () => undefined, limits });
  try {
    await test(client);
  } finally {
    client.close();
    await upstream.close();
  }
}

/** Asserts the next request goes on a new connection: the broken one was not reused. */
async function assertNotReused(client: HttpClient, upstream: ReturnType<typeof scripted>) {
  assert.equal(await (await post(client, upstream.url)).text(), '{"n":1}');
  assert.equal(upstream.accepted(), 2, "the connection of the refused answer was not reused");
}

/** Whether `error` is the failure of an answer over max_answer_bytes of `bytes`. */
const tooLarge = (bytes: number) => (error: unknown) => {
  assert.ok(error instanceof UpstreamFailure, String(error));
  assert.equal(error.kind, "network");
  assert.match(error.message, new RegExp(`server\\.max_answer_bytes \\(${bytes} bytes\\)`));
  return true;
};

Deno.test("answer limits: a Content-Length over max_answer_bytes is refused before a byte of the body is read", async () => {
  // Ten gigabytes announced and none sent: only a refusal that reads nothing can answer.
  const upstream = brokenFirst(
    writeAndHold("HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n"),
  );
  await withClient(upstream, { maxAnswerBytes: 1_000 }, async (client) => {
    const response = await post(client, upstream.url);
    // Nothing more comes: a refusal that waited for the body would never end.
    await assert.rejects(response.bytes(), tooLarge(1_000));
    await assertNotReused(client, upstream);
  });
});

Deno.test("answer limits: a body of exactly max_answer_bytes is read, by length or chunked", async () => {
  const body = `"${"x".repeat(998)}"`;
  const upstream = scripted(async (peer) => {
    await peer.request();
    await peer.write(answer(body));
    await peer.request();
    await peer.write(CHUNKED + chunk(body.slice(0, 500)) + chunk(body.slice(500)) + "0\r\n\r\n");
    await answerAll(peer);
  });
  await withClient(upstream, { maxAnswerBytes: 1_000 }, async (client) => {
    assert.equal(await (await post(client, upstream.url)).text(), body);
    assert.equal(await (await post(client, upstream.url)).text(), body);
    assert.equal(upstream.accepted(), 1);
  });
});

Deno.test("answer limits: a chunked answer over max_answer_bytes is refused as it is read, not at its end", async () => {
  const whole = CHUNKED + chunk("x".repeat(600)).repeat(2) + "0\r\n\r\n";
  // Whole, and cut short then closed: refused before the close is seen.
  for (const wire of [whole, whole.slice(0, -5)]) {
    const upstream = brokenFirst(writeAndClose(wire));
    await withClient(upstream, { maxAnswerBytes: 1_000 }, async (client) => {
      await assert.rejects(
        async () => await (await post(client, upstream.url)).bytes(),
        tooLarge(1_000),
      );
    });
  }
});

Deno.test("answer limits: an answer read until close is refused once past max_answer_bytes", async () => {
  const upstream = brokenFirst(
    writeAndClose(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n${"x".repeat(1_500)}`),
  );
  await withClient(upstream, { maxAnswerBytes: 1_000 }, async (client) => {
    await assert.rejects((await post(client, upstream.url)).text(), tooLarge(1_000));
  });
});

Deno.test("answer limits: a compressed answer is bounded by its size once inflated", async () => {
  // 100 KB of spaces gzip to a few hundred bytes: the wire is small, the answer is not.
  const inflated = new Uint8Array(100_000).fill(0x20);
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([inflated]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  const head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n" +
    `Content-Length: ${gzipped.byteLength}\r\n\r\n`;
  const upstream = scripted(async (peer) => {
    while (await peer.request()) {
      await peer.write(head);
      await peer.write(gzipped);
    }
  });
  await withClient(upstream, { maxAnswerBytes: 10_000 }, async (client) => {
    await assert.rejects((await post(client, upstream.url)).text(), tooLarge(10_000));
    const roomy = answerLimits({ maxAnswerBytes: 100_000 });
    assert.equal((await (await post(client, upstream.url, roomy)).bytes()).byteLength, 100_000);
  });
});

Deno.test("answer limits: a request's own limits win over the client's", async () => {
  const body = `"${"x".repeat(1_498)}"`;
  const upstream = scripted(async (peer) => {
    while (await peer.request()) await peer.write(answer(body));
  });
  await withClient(upstream, { maxAnswerBytes: 1_000 }, async (client) => {
    const roomy = answerLimits({ maxAnswerBytes: 2_000 });
    assert.equal(await (await post(client, upstream.url, roomy)).text(), body);
    const response = await post(client, upstream.url);
    await assert.rejects(response.bytes(), tooLarge(1_000));
    const tight = answerLimits({ maxAnswerBytes: 100 });
    const roomyClient = createHttpClient({ env: () => undefined });
    try {
      const refused = await post(roomyClient, upstream.url, tight);
      await assert.rejects(refused.bytes(), tooLarge(100));
    } finally {
      roomyClient.close();
    }
  });
});

Deno.test("answer limits: a stream is not capped by max_answer_bytes, one event of it is", async () => {
  const events = Array.from({ length: 30 }, (_, n) => `data: ${String(n).padStart(90, "-")}\n\n`);
  const huge = `data: ${"y".repeat(1_500)}\n\n`;
  const upstream = scripted(async (peer) => {
    await peer.request();
    // 30 events of 98 bytes: three times the bound in all, each well within it.
    await peer.write(SSE + events.map(chunk).join("") + "0\r\n\r\n");
    await peer.request();
    // One event of 1.5 KB, in pieces, cut short: refused before the close is seen.
    await peer.write(SSE + chunk(huge.slice(0, 700)) + chunk(huge.slice(700, 1_400)));
    peer.close();
  });
  await withClient(upstream, { maxAnswerBytes: 1_000 }, async (client) => {
    let read = 0;
    for await (const batch of readSseBatches((await post(client, upstream.url)).body!)) {
      read += batch.events.length;
    }
    assert.equal(read, 30);
    const stream = readSseBatches((await post(client, upstream.url)).body!);
    await assert.rejects(
      (async () => {
        for await (const _ of stream) { /* the events before the large one */ }
      })(),
      (error) => {
        assert.ok(error instanceof UpstreamFailure);
        assert.match(
          error.message,
          /stream has an event that is larger than server\.max_answer_bytes \(1000 bytes\)/,
        );
        return true;
      },
    );
  });
});

Deno.test("answer limits: a head over max_answer_head_bytes is a broken answer, interim heads counted", async () => {
  const field = `X-Pad: ${"p".repeat(300)}\r\n`;
  const cases = [
    // One head of ~1.5 KB, whole.
    writeAndHold(`HTTP/1.1 200 OK\r\n${field.repeat(5)}Content-Length: 2\r\n\r\n{}`),
    // The same cut short and closed: refused before the close is seen.
    writeAndClose(`HTTP/1.1 200 OK\r\n${field.repeat(5)}`),
    // Interim heads that each fit, but not with the answer after them.
    writeAndHold(
      `HTTP/1.1 100 Continue\r\n${field}\r\n`.repeat(3) +
        `HTTP/1.1 200 OK\r\n${field}Content-Length: 2\r\n\r\n{}`,
    ),
  ];
  for (const broken of cases) {
    const upstream = brokenFirst(broken);
    await withClient(upstream, { maxAnswerHeadBytes: 1_024 }, async (client) => {
      await assert.rejects(post(client, upstream.url), (error) => {
        assert.ok(error instanceof MalformedResponse, String(error));
        assert.match(error.message, /server\.max_answer_head_bytes \(1024 bytes\)/);
        return true;
      });
      await assertNotReused(client, upstream);
    });
  }
});

Deno.test("answer limits: a head of exactly max_answer_head_bytes is read", async () => {
  const start = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: ";
  const head = `${start}${"p".repeat(1_024 - start.length - 4)}\r\n\r\n`;
  assert.equal(head.length, 1_024);
  const upstream = scripted(async (peer) => {
    while (await peer.request()) await peer.write(`${head}{}`);
  });
  await withClient(upstream, { maxAnswerHeadBytes: 1_024 }, async (client) => {
    assert.equal(await (await post(client, upstream.url)).text(), "{}");
    const tighter = answerLimits({ maxAnswerHeadBytes: 1_023 });
    await assert.rejects(post(client, upstream.url, tighter), MalformedResponse);
  });
});

Deno.test("answer limits: a chunk's extensions or trailers over their bounds are a broken answer", async () => {
  const cases = [
    {
      wire: CHUNKED + `2;${"e".repeat(1_100)}\r\n{}\r\n0\r\n\r\n`,
      limit: /server\.max_chunk_extension_bytes \(1024 bytes\)/,
    },
    {
      wire: CHUNKED + `2\r\n{}\r\n0\r\n${`X-T: ${"t".repeat(1_000)}\r\n`.repeat(17)}\r\n`,
      limit: /server\.max_trailer_bytes \(16384 bytes\)/,
    },
  ];
  for (const { wire, limit } of cases) {
    const upstream = brokenFirst(writeAndHold(wire));
    await withClient(upstream, {}, async (client) => {
      await assert.rejects(
        async () => await (await post(client, upstream.url)).bytes(),
        (error) => {
          assert.ok(error instanceof MalformedResponse, String(error));
          assert.match(error.message, limit);
          return true;
        },
      );
      await assertNotReused(client, upstream);
    });
  }
});

Deno.test("answer limits: the defaults are the [server] keys' defaults", () => {
  assert.deepEqual(answerLimits(), {
    maxAnswerBytes: 67_108_864,
    maxAnswerHeadBytes: 65_536,
    maxChunkExtensionBytes: 1_024,
    maxTrailerBytes: 16_384,
  });
  assert.equal(answerLimits({ maxTrailerBytes: 5 }).maxAnswerBytes, 67_108_864);
});
