import assert from "node:assert/strict";
import fc from "fast-check";
import { createChunkedDecoder } from "./chunked.ts";
import { MalformedResponse } from "./head.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Feeds `wire` to a decoder in the given pieces; returns the payload and where the body ended. */
function decodeIn(pieces: Uint8Array[]): { payload: string; endedAt?: [number, number] } {
  const chunked = createChunkedDecoder();
  let payload = "";
  for (let i = 0; i < pieces.length; i++) {
    const ranges: number[] = [];
    const ended = chunked.decode(pieces[i]!, 0, pieces[i]!.byteLength, ranges);
    for (let r = 0; r < ranges.length; r += 2) {
      payload += decoder.decode(pieces[i]!.subarray(ranges[r], ranges[r + 1]), { stream: true });
    }
    if (ended >= 0) return { payload, endedAt: [i, ended] };
  }
  return { payload };
}

/** `wire` cut at the given offsets. */
function split(wire: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((cut) => cut % (wire.byteLength + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...at, wire.byteLength]) {
    pieces.push(wire.subarray(start, cut));
    start = cut;
  }
  return pieces;
}

/** A chunked encoding of `parts`, with optional extensions, trailers and bare-LF lines. */
function encode(parts: string[], options: { extensions?: boolean; trailers?: boolean }) {
  let wire = "";
  for (const part of parts) {
    const size = encoder.encode(part).byteLength;
    if (size === 0) continue;
    wire += `${size.toString(16)}${options.extensions ? ';name="v"' : ""}\r\n${part}\r\n`;
  }
  wire += `0\r\n${options.trailers ? "X-Trailer: 1\r\nY: 2\r\n" : ""}\r\n`;
  return encoder.encode(wire);
}

Deno.test("chunked: any split of any body decodes to the same payload, ending where it ends", () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: "binary", maxLength: 40 }), { maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 10 }),
      fc.boolean(),
      fc.boolean(),
      (parts, cuts, extensions, trailers) => {
        const wire = encode(parts, { extensions, trailers });
        const next = encoder.encode("HTTP/1.1 200 OK\r\n");
        const withNext = new Uint8Array(wire.byteLength + next.byteLength);
        withNext.set(wire);
        withNext.set(next, wire.byteLength);
        const pieces = split(withNext, cuts);
        const { payload, endedAt } = decodeIn(pieces);
        assert.equal(payload, parts.join(""));
        assert.ok(endedAt, "the body ends");
        const [piece, offset] = endedAt;
        const consumed = pieces.slice(0, piece).reduce((sum, p) => sum + p.byteLength, 0) +
          offset;
        assert.equal(consumed, wire.byteLength, "what follows the body is left unread");
      },
    ),
  );
});

Deno.test("chunked: bare LF line ends and upper-case sizes are read", () => {
  const { payload, endedAt } = decodeIn([encoder.encode("A\nabcdefghij\n0\n\n")]);
  assert.equal(payload, "abcdefghij");
  assert.deepEqual(endedAt, [0, 16]);
});

Deno.test("chunked: a body that is not chunked is refused", () => {
  for (
    const wire of [
      "zz\r\nab\r\n0\r\n\r\n", // not hex
      "\r\nab\r\n0\r\n\r\n", // no size
      "2\r\nabc\r\n0\r\n\r\n", // longer than its size
      "2\rxab\r\n0\r\n\r\n", // CR without LF
      "10000000000000\r\n", // a chunk of 2^52 bytes
      "0\r\n\rx", // the end's CR without LF
    ]
  ) {
    assert.throws(() => decodeIn([encoder.encode(wire)]), MalformedResponse, wire);
  }
});

Deno.test("chunked: an unfinished body asks for more", () => {
  assert.deepEqual(decodeIn([encoder.encode("5\r\nhel")]), { payload: "hel" });
});
