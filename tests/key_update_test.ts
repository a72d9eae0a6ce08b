/**
 * `tollgate key update` against a running gateway: the refusal tells the user what the
 * operator runs, the operator runs it, and the gateway serves the key within 2 seconds.
 */
import assert from "node:assert/strict";
import { runCli } from "../src/cli/main.ts";
import { channel, configWith, startGateway, type TestGateway } from "./harness.ts";
import { poll } from "./support.ts";

/** Runs the CLI on the gateway's config; fails the test unless it exits 0. */
async function cli(gateway: TestGateway, ...args: string[]): Promise<string> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(
    ["--config", gateway.configPath, ...args],
    { stdout: (text) => stdout.push(text), stderr: (text) => stderr.push(text) },
    { env: () => undefined },
  );
  assert.equal(code, 0, stderr.join("\n"));
  return stdout.join("\n");
}

const chat = (gateway: TestGateway, secret: string) =>
  gateway.post("/v1/chat/completions", secret, {
    model: "echo",
    max_tokens: 20,
    messages: [{ role: "user", content: "hello" }],
  }).then(async (response) => ({ status: response.status, body: await response.json() }));

Deno.test("a quota raised with key update, as the refusal says, serves within 2 s", async () => {
  const gateway = await startGateway(
    configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
  );
  try {
    const { id, secret } = await gateway.createKey({ quotaTokens: 5 });
    const refused = await chat(gateway, secret);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, "insufficient_user_quota");
    const command = `tollgate key update ${id} --quota TOKENS`;
    assert.ok(refused.body.error.message.includes(command), refused.body.error.message);

    await cli(gateway, "key", "update", id, "--quota", "100000");
    const raised = performance.now();
    await poll(
      async () => (await chat(gateway, secret)).status === 200,
      "the raised quota to serve",
      2_000 - (performance.now() - raised),
    );
  } finally {
    await gateway.close();
  }
});

Deno.test("a key's models widened and its group changed with key update take effect within 2 s", async () => {
  const gateway = await startGateway(
    configWith(
      channel({ name: "echo", protocol: "echo", models: ["echo"] }),
      `[groups.closed]\nmodels = ["none"]\n`,
    ),
  );
  try {
    const { id, secret } = await gateway.createKey({ models: ["other"] });
    assert.equal((await chat(gateway, secret)).status, 403);
    await cli(gateway, "key", "update", id, "--models", "all");
    const widened = performance.now();
    await poll(
      async () => (await chat(gateway, secret)).status === 200,
      "every model of the group to serve",
      2_000 - (performance.now() - widened),
    );
    // Moved to a group without the model: refused again.
    await cli(gateway, "key", "update", id, "--group", "closed");
    const moved = performance.now();
    await poll(
      async () => (await chat(gateway, secret)).status !== 200,
      "the group without the model to refuse",
      2_000 - (performance.now() - moved),
    );
  } finally {
    await gateway.close();
  }
});
