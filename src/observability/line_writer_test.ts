import assert from "node:assert/strict";
import { createLineWriter } from "./line_writer.ts";

Deno.test("line writer: lines queued together go out in order in one write", async () => {
  const writes: string[] = [];
  const writer = createLineWriter((text) => {
    writes.push(text);
    return Promise.resolve();
  });
  writer.line("first");
  writer.line("second");
  assert.deepEqual(writes, [], "nothing is written while lines may still join the batch");
  await writer.flush();
  assert.deepEqual(writes, ["first\nsecond\n"]);
  await writer.flush();
  assert.equal(writes.length, 1, "an empty queue writes nothing");
});

Deno.test("line writer: a large batch goes out without waiting, and a failed write loses no request", async () => {
  const writes: string[] = [];
  let fail = true;
  const writer = createLineWriter((text) => {
    if (fail) {
      fail = false;
      return Promise.reject(new Error("stdout closed"));
    }
    writes.push(text);
    return Promise.resolve();
  });
  const line = "x".repeat(1024);
  for (let i = 0; i < 64; i++) writer.line(line);
  // The 64th line reached the batch size: its write started, and it failed quietly.
  writer.line("after");
  await writer.flush();
  assert.deepEqual(writes, ["after\n"]);
});
