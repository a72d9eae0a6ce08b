import assert from "node:assert/strict";

const PROBE = new URL("./lazy_packages_probe.ts", import.meta.url).pathname;

Deno.test("lazy packages: zod loads at start; the tokenizer, prom-client, pg, libSQL and kysely only for what needs them", async () => {
  // Its own process: other tests (and the fakes) load these packages into theirs.
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--unstable-no-legacy-abort", PROBE],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const steps = JSON.parse(new TextDecoder().decode(output.stdout));
  // zod validates the config (and every request envelope), so it loads at start. Plain
  // requests on a channel that reports usage load nothing more; the echo channel counts
  // tokens; the first scrape renders metrics; a gateway on a SQLite file never loads pg, nor
  // the libSQL client and driver (the runtime's own SQLite serves a file), nor kysely (the
  // store looks keys up, and a first start makes its key in plain SQL), nor OpenTelemetry's
  // API (without OTEL_DENO, no span is made; prom-client loads it itself, for its exemplars,
  // at the first scrape). Each later
  // step shows the probe does see a package once something needs it.
  assert.deepEqual(steps, {
    start: ["zod"],
    chat: ["zod"],
    echo: ["zod", "gpt-tokenizer"],
    metrics: ["zod", "gpt-tokenizer", "prom-client", "@opentelemetry/api"],
  });
});
