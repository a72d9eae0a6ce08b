import assert from "node:assert/strict";

const PROBE = new URL("./text_memory_probe.ts", import.meta.url).pathname;

Deno.test("a stream's produced text keeps none of the events it was read from", async () => {
  // Its own process, to count the heap with V8's collector at hand.
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--v8-flags=--expose-gc", PROBE],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  const { bytesPerCollector } = JSON.parse(new TextDecoder().decode(output.stdout));
  // Three events of ~20 KB each went through every collector; their text is ~120 characters.
  assert.ok(bytesPerCollector < 2_000, `each collector holds ${bytesPerCollector} bytes`);
});
