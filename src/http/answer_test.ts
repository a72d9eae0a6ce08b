import assert from "node:assert/strict";
import { answerHead, chunk } from "./answer.ts";
import { headAndBody } from "../upstream/http1/write_buffers.ts";

const decoder = new TextDecoder();

Deno.test("answer: a head's status, date, fields and framing; a value that is not ASCII is left out", () => {
  const head = answerHead(
    429,
    { "retry-after": "1\u00e9", "x-request-id": "req_1", "content-type": "application/json" },
    { length: 12 },
    { date: "Thu, 26 Nov 2026 08:00:00 GMT", close: true },
  );
  assert.equal(
    head,
    "HTTP/1.1 429 Too Many Requests\r\ndate: Thu, 26 Nov 2026 08:00:00 GMT\r\n" +
      "x-request-id: req_1\r\ncontent-type: application/json\r\ncontent-length: 12\r\n" +
      "connection: close\r\n\r\n",
  );
  assert.match(answerHead(529, {}, "chunked", { date: "d", close: false }), /^HTTP\/1\.1 529 \r\n/);
});

Deno.test("answer: a whole answer is its head and body; a chunk is framed, after the head if given", () => {
  const body = new TextEncoder().encode("h\u00e9llo");
  assert.equal(decoder.decode(headAndBody("HEAD\r\n\r\n", body)), "HEAD\r\n\r\nh\u00e9llo");
  assert.equal(decoder.decode(chunk(body)), "6\r\nh\u00e9llo\r\n");
  assert.equal(decoder.decode(chunk(body, "HEAD\r\n\r\n")), "HEAD\r\n\r\n6\r\nh\u00e9llo\r\n");
  // The last: the chunk and the end of the body at once.
  assert.equal(decoder.decode(chunk(body, "", true)), "6\r\nh\u00e9llo\r\n0\r\n\r\n");
  // Nothing to frame makes no chunk (a chunk of size zero would end the body early).
  const none = new Uint8Array(0);
  assert.equal(decoder.decode(chunk(none)), "");
  assert.equal(decoder.decode(chunk(none, "HEAD\r\n\r\n")), "HEAD\r\n\r\n");
  assert.equal(decoder.decode(chunk(none, "", true)), "0\r\n\r\n");
});
