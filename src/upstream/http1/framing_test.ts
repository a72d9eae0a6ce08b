/**
 * Framing that llhttp (Node's parser) refuses, sent byte for byte by scripted raw-socket
 * upstreams: each is a broken answer (MalformedResponse, which the relay answers 502
 * `upstream_error`), and the connection it came on is never reused, though the upstream
 * would answer a second request on it with `{"reused":true}`.
 */
import assert from "node:assert/strict";
import { createHttpClient, type HttpClient } from "./client.ts";
import { MalformedResponse } from "./head.ts";
import { answer, answerAll, scripted } from "../../../tests/fakes/scripted_upstream.ts";

const CHUNKED =
  "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";

/** Answers llhttp refuses, by what is wrong with them. */
const BROKEN: Record<string, string> = {
  "a bare LF after a chunk size": `${CHUNKED}2\n{}\r\n0\r\n\r\n`,
  "a bare LF after chunk data": `${CHUNKED}2\r\n{}\n0\r\n\r\n`,
  "a bare LF ending the body": `${CHUNKED}2\r\n{}\r\n0\r\n\n`,
  "text after a size without ';'": `${CHUNKED}2 junk\r\n{}\r\n0\r\n\r\n`,
  "a blank after a size": `${CHUNKED}2 \r\n{}\r\n0\r\n\r\n`,
  "a blank after ';'": `${CHUNKED}2; a=b\r\n{}\r\n0\r\n\r\n`,
  "a trailer line that is not a field": `${CHUNKED}2\r\n{}\r\n0\r\nnot a field\r\n\r\n`,
  "an obs-fold in the trailers": `${CHUNKED}2\r\n{}\r\n0\r\nX-T: 1\r\n folded\r\n\r\n`,
  "an obs-fold in the head": "HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: 2\r\n\r\n{}",
  "a Content-Length padded with a vertical tab":
    "HTTP/1.1 200 OK\r\nContent-Length: \u000b2\r\n\r\n{}",
  "a Content-Length padded with a form feed":
    "HTTP/1.1 200 OK\r\nContent-Length: 2\u000c\r\n\r\n{}",
  "a Content-Length padded with U+00A0": "HTTP/1.1 200 OK\r\nContent-Length: \u00a02\r\n\r\n{}",
  "a Content-Length repeated":
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
  "a Transfer-Encoding beside a Content-Length":
    `HTTP/1.1 200 OK\r\nContent-Length: 7\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
  "a control character in a header value":
    "HTTP/1.1 200 OK\r\nX-A: \u001b[2K\r\nContent-Length: 2\r\n\r\n{}",
  "a blank before a header's colon": "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\n{}",
};

/** A POST of `{}` to `url`. */
const postTo = (client: HttpClient, url: string) =>
  client.post({ url, headers: {}, body: "{}" }, {
    signal: new AbortController().signal,
    connectMs: 5_000,
  });

/** The characters' codes as bytes, so that U+00A0 goes out as the one byte 0xA0. */
const latin1 = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));

for (const [what, wire] of Object.entries(BROKEN)) {
  Deno.test(`framing: ${what} is a broken answer, its connection not reused`, async () => {
    const upstream = scripted(async (peer, index) => {
      if (index > 0) return await answerAll(peer);
      if (!(await peer.request())) return;
      await peer.write(latin1(wire));
      while (await peer.request()) await peer.write(answer('{"reused":true}'));
    });
    const client = createHttpClient({ env: () => undefined });
    const post = () => postTo(client, upstream.url);
    try {
      // Refused with the head, or as the body is read.
      await assert.rejects(async () => await (await post()).bytes(), MalformedResponse);
      assert.equal(await (await post()).text(), '{"n":1}');
      assert.equal(upstream.accepted(), 2, "the broken answer's connection was not reused");
    } finally {
      client.close();
      await upstream.close();
    }
  });
}

Deno.test("framing: what llhttp reads is read, and its connection reused", async () => {
  // Blanks around a length, obs-text in a value, extensions and trailers as RFC 9112 has them.
  const answers = [
    "HTTP/1.1 200 OK\r\nX-Latin: caf\u00e9\r\nContent-Length:\t2 \r\n\r\n{}",
    `${CHUNKED}1;a;b=c;q="x\\"y"\r\n{\r\n1\r\n}\r\n0\r\nX-T: 1\r\n\r\n`,
  ];
  const upstream = scripted(async (peer) => {
    for (const wire of answers) {
      await peer.request();
      await peer.write(latin1(wire));
    }
    await answerAll(peer);
  });
  const client = createHttpClient({ env: () => undefined });
  const post = () => postTo(client, upstream.url);
  try {
    const first = await post();
    assert.equal(first.header("x-latin"), "caf\u00e9");
    assert.equal(await first.text(), "{}");
    assert.equal(await (await post()).text(), "{}");
    assert.equal(upstream.accepted(), 1);
  } finally {
    client.close();
    await upstream.close();
  }
});
