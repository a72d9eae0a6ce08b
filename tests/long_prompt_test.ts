/**
 * Prompts that cost a BPE counter most, over HTTP: a megabyte of one letter (a single
 * piece of o200k's split, which tiktoken's merge takes minutes over) and of base64 is
 * counted by the context-window check, the echo channel and count_tokens, and answered
 * with plausible counts, while /healthz answers beside it.
 */
import assert from "node:assert/strict";
import { pathologicalTexts } from "./token_texts.ts";
import { channel, configWith, startGateway } from "./harness.ts";

const MEGABYTE = 1_000_000;

Deno.test("long prompt: 1 MB of one letter is counted and echoed, and /healthz answers beside it", async () => {
  const gateway = await startGateway(configWith(
    channel({ name: "echo", protocol: "echo", models: ["echo"] }),
    // A window the megabyte's bytes pass: the check must count its tokens.
    '[models."echo"]\ncontext_window = 1_000_000\nmax_output_tokens = 100\n',
  ));
  try {
    const { secret } = await gateway.createKey();
    const letters = "x".repeat(MEGABYTE);
    const [chat, health] = await Promise.all([
      gateway.post("/v1/chat/completions", secret, {
        model: "echo",
        messages: [{ role: "user", content: letters }],
        max_tokens: 100,
      }),
      fetch(`${gateway.url}/healthz`),
    ]);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    assert.equal(chat.status, 200);
    const body = await chat.json();
    // o200k_base has "xxxxxxxx" as one token: 125,000 tokens, estimated a little under.
    assert.ok(
      body.usage.prompt_tokens > 120_000 && body.usage.prompt_tokens <= 126_000,
      `${body.usage.prompt_tokens}`,
    );
    // One word longer than the cap: nothing fits, and the finish says why.
    assert.equal(body.choices[0].message.content, "");
    assert.equal(body.choices[0].finish_reason, "length");
  } finally {
    await gateway.close();
  }
});

Deno.test("long prompt: 1 MB of base64 is counted by count_tokens and echoed back whole", async () => {
  const gateway = await startGateway(
    configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
  );
  try {
    const { secret } = await gateway.createKey();
    const base64 = pathologicalTexts(MEGABYTE).base64!;
    const messages = [{ role: "user", content: base64 }];
    const counted = await gateway.post("/v1/messages/count_tokens", secret, {
      model: "echo",
      messages,
    });
    assert.equal(counted.status, 200);
    const { input_tokens } = await counted.json();
    // Base64 is ~0.68 tokens a character to o200k_base.
    assert.ok(input_tokens > 600_000 && input_tokens < 750_000, `${input_tokens}`);
    const echoed = await gateway.post("/v1/messages", secret, {
      model: "echo",
      max_tokens: 1_000_000,
      messages,
    });
    assert.equal(echoed.status, 200);
    const body = await echoed.json();
    assert.equal(body.content[0].text, base64);
    assert.equal(body.usage.input_tokens, input_tokens);
    assert.ok(Math.abs(body.usage.output_tokens / input_tokens - 1) < 0.01);
  } finally {
    await gateway.close();
  }
});
