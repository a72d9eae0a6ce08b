import assert from "node:assert/strict";
import { createLineWriter } from "./line_writer.ts";

const DECODER = new TextDecoder();

/** A line writer whose writes are recorded as text; `fail` rejects the next write. */
function recordingWriter() {
  const writes: string[] = [];
  const state = { fail: false };
  const writer = createLineWriter((bytes) => {
    if (state.fail) {
      state.fail = false;
      return Promise.reject(new Error("stdout closed"));
    }
    writes.push(DECODER.decode(bytes));
    return Promise.resolve();
  });
  return { writer, writes, state };
}

Deno.test("line writer: lines queued together go out in order in one write", async () => {
  const { writer, writes } = recordingWriter();
  writer.line("first");
  writer.line("zweite Zeile, ünïcödé");
  assert.deepEqual(writes, [], "nothing is written while lines may still join the batch");
  await writer.flush();
  assert.deepEqual(writes, ["first\nzweite Zeile, ünïcödé\n"]);
  await writer.flush();
  assert.equal(writes.length, 1, "an empty queue writes nothing");
});

Deno.test("line writer: a full batch goes out and the line that did not fit starts the next", async () => {
  const { writer, writes } = recordingWriter();
  const line = "x".repeat(1023); // 1 KiB with its newline: 64 fill a batch
  for (let i = 0; i < 65; i++) writer.line(line);
  writer.line("after");
  await writer.flush();
  assert.equal(writes.length, 2);
  assert.equal(writes[0], `${line}\n`.repeat(64));
  assert.equal(writes[1], `${line}\nafter\n`);
});

Deno.test("line writer: a line longer than a batch is written whole", async () => {
  const { writer, writes } = recordingWriter();
  const long = "y".repeat(100_000);
  writer.line("before");
  writer.line(long);
  writer.line("after");
  await writer.flush();
  assert.deepEqual(writes, ["before\n", `${long}\n`, "after\n"]);
});

Deno.test("line writer: a failed write loses its lines, not the ones after it", async () => {
  const { writer, writes, state } = recordingWriter();
  state.fail = true;
  writer.line("lost");
  await writer.flush();
  writer.line("kept");
  await writer.flush();
  assert.deepEqual(writes, ["kept\n"]);
});
