import assert from "node:assert/strict";
import { WRITE_BUFFER_BYTES, WriteBuffers } from "./write_buffers.ts";

Deno.test("write buffers: an array given back is taken again; one too large is never kept", () => {
  const buffers = new WriteBuffers();
  const first = buffers.take(600);
  assert.equal(first.byteLength, 600);
  // A second take while the first is out gets an array of its own.
  const second = buffers.take(100);
  assert.notEqual(second.buffer, first.buffer);
  buffers.give(first);
  const again = buffers.take(WRITE_BUFFER_BYTES);
  assert.equal(again.buffer, first.buffer);
  assert.equal(again.byteLength, WRITE_BUFFER_BYTES);

  const large = buffers.take(WRITE_BUFFER_BYTES + 1);
  assert.equal(large.byteLength, WRITE_BUFFER_BYTES + 1);
  buffers.give(large);
  assert.notEqual(buffers.take(10).buffer, large.buffer);
});

Deno.test("write buffers: an array given twice is kept once, so two writes never share it", () => {
  const buffers = new WriteBuffers();
  const bytes = buffers.take(10);
  buffers.give(bytes);
  buffers.give(bytes);
  const a = buffers.take(10);
  const b = buffers.take(10);
  assert.equal(a.buffer, bytes.buffer);
  assert.notEqual(b.buffer, a.buffer);
});
