import assert from "node:assert/strict";
import { framingOf, headEnd, keepsAlive, MalformedResponse, parseResponseHead } from "./head.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const parse = (text: string) => {
  const head = bytes(text);
  return parseResponseHead(head, headEnd(head));
};

Deno.test("head: the end is found after the blank line, also when a search resumes", () => {
  const head = bytes("HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody");
  assert.equal(headEnd(head), 25);
  assert.equal(headEnd(head, 24), 25, "a search resuming at the last CRLF still finds it");
  assert.equal(headEnd(bytes("HTTP/1.1 200 OK\r\nA: b\r\n")), -1);
});

Deno.test("head: status, version and headers by lowercase name, repeats joined", () => {
  const head = parse(
    "HTTP/1.1 429 Too Many Requests\r\nRetry-After:  30 \r\nX-A: 1\r\nx-a: 2\r\nEmpty:\r\n\r\n",
  );
  assert.equal(head.status, 429);
  assert.equal(head.version, "1.1");
  assert.equal(head.headers.get("retry-after"), "30");
  assert.equal(head.headers.get("x-a"), "1, 2");
  assert.equal(head.headers.get("empty"), "");
  assert.equal(parse("HTTP/1.0 200\r\n\r\n").version, "1.0", "the reason phrase may be absent");
});

Deno.test("head: what is not HTTP/1.1 is refused", () => {
  for (
    const text of [
      "HTTP/2 200 OK\r\n\r\n",
      "HTTP/1.1 20 OK\r\n\r\n",
      "SSH-2.0-OpenSSH\r\n\r\n",
      "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
      "HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
    ]
  ) {
    assert.throws(() => parse(text), MalformedResponse, JSON.stringify(text));
  }
});

/** The framing of a head of `headers` (latin1: a character a byte, as a wire carries them). */
const framing = (headers: string, status = 200) => {
  const head = Uint8Array.from(`HTTP/1.1 ${status} X\r\n${headers}\r\n`, (c) => c.charCodeAt(0));
  return framingOf(parseResponseHead(head, head.byteLength));
};

Deno.test("head: the framing follows RFC 9112: chunked, then length, else until close", () => {
  assert.deepEqual(framing("Transfer-Encoding: chunked\r\n"), { kind: "chunked" });
  assert.deepEqual(framing("Transfer-Encoding: gzip, chunked\r\n"), { kind: "chunked" });
  assert.deepEqual(framing("Transfer-Encoding: gzip,\tChunked \r\n"), { kind: "chunked" });
  assert.deepEqual(framing("Transfer-Encoding: chunked, gzip\r\n"), { kind: "close" });
  assert.deepEqual(framing("Content-Length: 42\r\n"), { kind: "length", length: 42 });
  assert.deepEqual(framing("Content-Length: \t42 \r\n"), { kind: "length", length: 42 });
  assert.deepEqual(framing(""), { kind: "close" });
  assert.deepEqual(framing("Content-Length: 9\r\n", 204), { kind: "none" });
  assert.deepEqual(framing("", 304), { kind: "none" });
});

Deno.test("head: framing llhttp refuses is refused, padding other than blanks included", () => {
  for (
    const headers of [
      "Content-Length: 42, 43\r\n",
      // Repeated, even alike: llhttp refuses a second Content-Length.
      "Content-Length: 42, 42\r\n",
      "Content-Length: 42\r\nContent-Length: 42\r\n",
      "Content-Length: -1\r\n",
      "Content-Length: 4e2\r\n",
      "Content-Length: +42\r\n",
      "Content-Length: 4 2\r\n",
      "Content-Length: \r\n",
      // Padding String.trim() would take away: vertical tab, form feed, U+00A0.
      "Content-Length: \u000b42\r\n",
      "Content-Length: 42\u000c\r\n",
      "Content-Length: \u00a042\r\n",
      "Content-Length: 42\u00a0\r\n",
      // Both: readers that disagree on which wins split the answer differently.
      "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
      "Content-Length: 5\r\nTransfer-Encoding: identity\r\n",
      "Transfer-Encoding: \u000bchunked\r\n",
      "X-Folded: a\r\n b\r\nContent-Length: 0\r\n",
    ]
  ) {
    assert.throws(() => framing(headers), MalformedResponse, JSON.stringify(headers));
  }
  // U+00A0 is no blank: "\u00a0chunked" is a coding of another name, read until close.
  assert.deepEqual(framing("Transfer-Encoding: \u00a0chunked\r\n"), { kind: "close" });
  assert.deepEqual(framing("Transfer-Encoding: chunked\u00a0\r\n"), { kind: "close" });
});

Deno.test("head: a connection is kept unless the answer or HTTP/1.0 says otherwise", () => {
  const keeps = (text: string) => {
    const head = parse(text);
    return keepsAlive(head, framingOf(head));
  };
  assert.equal(keeps("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), true);
  assert.equal(keeps("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"), false);
  assert.equal(
    keeps("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: x, Close\r\n\r\n"),
    false,
  );
  assert.equal(keeps("HTTP/1.1 200 OK\r\n\r\n"), false, "a body until close ends the connection");
  assert.equal(keeps("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"), false);
  assert.equal(
    keeps("HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n"),
    true,
  );
});
