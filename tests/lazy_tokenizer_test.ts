import assert from "node:assert/strict";

const PROBE = new URL("./tokenizer_probe.ts", import.meta.url).pathname;

Deno.test("tokenizer: plain requests on a channel that reports usage never load it", async () => {
  // Its own process: other tests (and the fakes) load gpt-tokenizer into theirs.
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-no-legacy-abort", PROBE],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const steps = JSON.parse(new TextDecoder().decode(output.stdout));
  // The echo step shows the probe does see the tokenizer once something needs a count.
  assert.deepEqual(steps, { chat: false, echo: true });
});
