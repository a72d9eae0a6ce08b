import assert from "node:assert/strict";
import {
  BadRequest,
  bodyFramingOf,
  parseRequestHead,
  type RequestHead,
  wantsKeepAlive,
} from "./request_head.ts";

const parse = (text: string): RequestHead => {
  const bytes = new TextEncoder().encode(text);
  return parseRequestHead(bytes, 0, bytes.byteLength);
};

/** Asserts that `read` throws the BadRequest of `status` (naming `path`, when given). */
function assertRefused(
  read: () => unknown,
  status: number,
  path: string | undefined,
  what: string,
) {
  assert.throws(
    read,
    (error) =>
      error instanceof BadRequest && error.status === status &&
      (path === undefined || error.path === path),
    what,
  );
}

Deno.test("request head: method, path, query, version and headers by lowercase name", () => {
  const head = parse(
    "POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nX-Api-Key:  sk-1 \r\nA: 1\r\na: 2\r\n\r\n",
  );
  assert.equal(head.method, "POST");
  assert.equal(head.path, "/v1/messages");
  assert.equal(head.search, "?beta=true");
  assert.equal(head.version, "1.1");
  assert.equal(head.headers.get("x-api-key"), "sk-1");
  assert.equal(head.headers.get("a"), "1, 2", "repeated fields are joined");
});

Deno.test("request head: the query is split off as a URL would, absolute form keeps the path", () => {
  for (
    const [target, path, search] of [
      ["/v1/models", "/v1/models", ""],
      ["/v1/models?", "/v1/models", ""],
      ["/v1/chat/completions?a=1?b=2", "/v1/chat/completions", "?a=1?b=2"],
      ["http://gateway:8080/v1/models?x=1", "/v1/models", "?x=1"],
      ["http://gateway:8080", "/", ""],
    ] as const
  ) {
    const head = parse(`GET ${target} HTTP/1.1\r\n\r\n`);
    assert.deepEqual([head.path, head.search], [path, search], target);
  }
});

Deno.test("request head: what is not an HTTP/1.x request is refused with the status to answer", () => {
  for (
    const [text, status] of [
      ["GET /x HTTP/2.0\r\n\r\n", 505],
      ["PRI * HTTP/2.0\r\n\r\n", 505],
      ["GET /x\r\n\r\n", 400],
      ["G(T /x HTTP/1.1\r\n\r\n", 400],
      ["GET x HTTP/1.1\r\n\r\n", 400],
      ["GET /x HTTP/1.1\r\nno colon\r\n\r\n", 400],
      ["GET /x HTTP/1.1\r\nbad name: x\r\n\r\n", 400],
      ["GET /x HTTP/1.1\r\n folded: x\r\n\r\n", 400],
    ] as const
  ) {
    assertRefused(() => parse(text), status, undefined, JSON.stringify(text));
  }
});

Deno.test("request head: a body is framed by its length or by chunks, never both", () => {
  const framing = (fields: string) =>
    bodyFramingOf(parse(`POST /v1/responses HTTP/1.1\r\n${fields}\r\n`));
  assert.deepEqual(framing(""), { kind: "length", length: 0 });
  assert.deepEqual(framing("Content-Length: 42\r\n"), { kind: "length", length: 42 });
  assert.deepEqual(framing("Content-Length: 42, 42\r\n"), { kind: "length", length: 42 });
  assert.deepEqual(framing("Transfer-Encoding: Chunked\r\n"), { kind: "chunked" });
  for (
    const [fields, status] of [
      ["Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", 400],
      ["Content-Length: 1, 2\r\n", 400],
      ["Content-Length: -1\r\n", 400],
      ["Content-Length: abc\r\n", 400],
      ["Transfer-Encoding: gzip, chunked\r\n", 501],
    ] as const
  ) {
    assertRefused(() => framing(fields), status, "/v1/responses", fields);
  }
});

Deno.test("request head: HTTP/1.1 keeps the connection unless told to close; 1.0 only if asked", () => {
  assert.equal(wantsKeepAlive(parse("GET / HTTP/1.1\r\n\r\n")), true);
  assert.equal(wantsKeepAlive(parse("GET / HTTP/1.1\r\nConnection: Close\r\n\r\n")), false);
  assert.equal(wantsKeepAlive(parse("GET / HTTP/1.0\r\n\r\n")), false);
  assert.equal(wantsKeepAlive(parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")), true);
});
