import assert from "node:assert/strict";
import fc from "fast-check";
import { ByteSlab, MAX_CUT_BYTES, SLAB_BYTES } from "./byte_slab.ts";

Deno.test("byte slab: every copy keeps its bytes while the source is reused and other copies are cut", () => {
  fc.assert(fc.property(
    fc.array(fc.integer({ min: 0, max: MAX_CUT_BYTES + 100 }), { minLength: 1, maxLength: 60 }),
    (lengths) => {
      const slab = new ByteSlab();
      // One source reused for every copy, as a connection's buffer is.
      const source = new Uint8Array(MAX_CUT_BYTES + 200);
      const copies = lengths.map((length, n) => {
        source.fill(n % 251);
        const start = n % 50;
        return { n, length, bytes: slab.copy(source, start, start + length) };
      });
      source.fill(255);
      for (const { n, length, bytes } of copies) {
        assert.equal(bytes.byteLength, length);
        assert.ok(bytes.every((byte) => byte === n % 251), `copy ${n} was overwritten`);
      }
    },
  ));
});

Deno.test("byte slab: small copies share a slab until it is full; large ones get arrays of their own", () => {
  const slab = new ByteSlab();
  const source = new Uint8Array(MAX_CUT_BYTES + 1);
  const first = slab.copy(source, 0, 100);
  const second = slab.copy(source, 0, 100);
  assert.equal(first.buffer, second.buffer);
  assert.equal(first.buffer.byteLength, SLAB_BYTES);
  assert.equal(second.byteOffset, 100);
  const large = slab.copy(source, 0, MAX_CUT_BYTES + 1);
  assert.equal(large.buffer.byteLength, MAX_CUT_BYTES + 1);
  // Cuts until the slab cannot hold the next: that one starts a new slab.
  let last = second;
  while (last.buffer === first.buffer) last = slab.copy(source, 0, MAX_CUT_BYTES);
  assert.equal(last.byteOffset, 0);
  assert.notEqual(last.buffer, first.buffer);
});
