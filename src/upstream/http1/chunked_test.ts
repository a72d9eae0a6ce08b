import assert from "node:assert/strict";
import fc from "fast-check";
import { createChunkedDecoder } from "./chunked.ts";
import { MalformedResponse } from "./head.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Bytes of the characters' codes, one byte each, as a wire carries text of any byte. */
const latin1 = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0));

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

Deno.test("chunked: upper-case sizes, the extensions llhttp reads, and trailers are read", () => {
  const wire = 'A;a;b=c;q="x\\"y\t\u00e9";=v\r\nabcdefghij\r\n0;last\r\nX-T: 1\r\nY:\r\n\r\n';
  const { payload, endedAt } = decodeIn([latin1(wire)]);
  assert.equal(payload, "abcdefghij");
  assert.deepEqual(endedAt, [0, wire.length]);
});

Deno.test("chunked: framing llhttp refuses is refused", () => {
  for (
    const wire of [
      "zz\r\nab\r\n0\r\n\r\n", // not hex
      "\r\nab\r\n0\r\n\r\n", // no size
      "2\r\nabc\r\n0\r\n\r\n", // longer than its size
      "2\rxab\r\n0\r\n\r\n", // CR without LF
      "10000000000000\r\n", // a chunk of 2^52 bytes
      "0\r\n\rx", // the end's CR without LF
      "A\nabcdefghij\r\n0\r\n\r\n", // a bare LF after a size
      "3\r\nabc\n0\r\n\r\n", // a bare LF after data
      "3\r\nabc\r0\r\n\r\n", // a CR without LF after data
      "0\r\n\n", // a bare LF ending the body
      "3 \r\nabc\r\n0\r\n\r\n", // a blank after a size
      "3\t;a\r\nabc\r\n0\r\n\r\n", // a tab after a size
      "3x\r\nabc\r\n0\r\n\r\n", // text after a size without ';'
      "3; a\r\nabc\r\n0\r\n\r\n", // a blank after ';'
      "3;\r\nabc\r\n0\r\n\r\n", // nothing after ';'
      "3;a b\r\nabc\r\n0\r\n\r\n", // a blank in a name
      "3;a=b c\r\nabc\r\n0\r\n\r\n", // a blank in a value
      "3;a\nabc\r\n0\r\n\r\n", // a bare LF after an extension
      '3;a="b\u0001"\r\nabc\r\n0\r\n\r\n', // a control character in a quoted value
      '3;a="b"c\r\nabc\r\n0\r\n\r\n', // text after a quoted value
      "0\r\nnot a field\r\n\r\n", // a trailer line that is not a field
      "0\r\n: x\r\n\r\n", // a trailer without a name
      "0\r\nA : 1\r\n\r\n", // a blank before a trailer's colon
      "0\r\nA: 1\r\n folded\r\n\r\n", // an obs-fold in the trailers
      "0\r\nA: 1\n\r\n", // a trailer line ending with a bare LF
      "0\r\nA: 1\u000b2\r\n\r\n", // a control character in a trailer
    ]
  ) {
    assert.throws(() => decodeIn([latin1(wire)]), MalformedResponse, JSON.stringify(wire));
  }
});

Deno.test("chunked: extensions and trailers are bounded; at the bound they are read", () => {
  const limits = { maxChunkExtensionBytes: 8, maxTrailerBytes: 10 };
  const decode = (wire: string) =>
    createChunkedDecoder(undefined, limits).decode(latin1(wire), 0, wire.length, []);
  // ";abcdefg" and its CR: eight bytes after the `;`, as many as the bound.
  assert.equal(decode("1;abcdefg\r\nx\r\n0\r\n\r\n"), 19, "the whole body");
  assert.throws(
    () => decode("1;abcdefgh\r\nx\r\n0\r\n\r\n"),
    /max_chunk_extension_bytes \(8 bytes\)/,
  );
  // Each chunk has a bound of its own.
  assert.equal(decode("1;abcdefg\r\nx\r\n1;abcdefg\r\ny\r\n0\r\n\r\n"), 33);
  // "A: 12345" and its CRLF: ten bytes; the blank line that ends the body is not counted.
  assert.equal(decode("0\r\nA: 12345\r\n\r\n"), 15);
  assert.throws(() => decode("0\r\nA: 123456\r\n\r\n"), /max_trailer_bytes \(10 bytes\)/);
  assert.throws(() => decode("0\r\nA: 1\r\nB: 2\r\n\r\n"), /max_trailer_bytes/, "in all");
  // Refused as it arrives, long before a line end that may never come.
  const endless = createChunkedDecoder(undefined, limits);
  assert.equal(endless.decode(latin1("1;abcdef"), 0, 8, []), -1);
  assert.throws(() => endless.decode(latin1("ghi"), 0, 3, []), /max_chunk_extension_bytes/);
});

Deno.test("chunked: an unfinished body asks for more", () => {
  assert.deepEqual(decodeIn([encoder.encode("5\r\nhel")]), { payload: "hel" });
});
