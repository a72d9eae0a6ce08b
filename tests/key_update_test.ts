/**
 * `tollgate key update` against a running gateway: the refusal tells the user what the
 * operator runs, the operator runs it, and the gateway serves the key within 2 seconds.
 * The gateway's clock moves when the test says: 2 s on it is the promise, whatever the
 * machine's speed.
 */
import assert from "node:assert/strict";
import { runCli } from "../src/cli/main.ts";
import { channel, configWith, startGateway, type TestGateway } from "./harness.ts";

/** How long design.md gives a change made with the CLI to reach a running gateway. */
const WITHIN_MS = 2_000;

/** A gateway whose clock of record moves only by `pass`. */
async function gatewayWithClock(config: string) {
  let time = Date.now();
  const gateway = await startGateway(config, { now: () => time });
  return { gateway, pass: (ms: number) => void (time += ms) };
}

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
  const { gateway, pass } = await gatewayWithClock(
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
    pass(WITHIN_MS);
    assert.equal((await chat(gateway, secret)).status, 200, "the raised quota serves");
  } finally {
    await gateway.close();
  }
});

Deno.test("a key's models widened and its group changed with key update take effect within 2 s", async () => {
  const { gateway, pass } = await gatewayWithClock(
    configWith(
      channel({ name: "echo", protocol: "echo", models: ["echo"] }),
      `[groups.closed]\nmodels = ["none"]\n`,
    ),
  );
  try {
    const { id, secret } = await gateway.createKey({ models: ["other"] });
    assert.equal((await chat(gateway, secret)).status, 403);
    await cli(gateway, "key", "update", id, "--models", "all");
    pass(WITHIN_MS);
    assert.equal((await chat(gateway, secret)).status, 200, "every model of the group serves");
    // Moved to a group without the model: refused again.
    await cli(gateway, "key", "update", id, "--group", "closed");
    pass(WITHIN_MS);
    assert.notEqual((await chat(gateway, secret)).status, 200, "the group without it refuses");
  } finally {
    await gateway.close();
  }
});

Deno.test("a key revoked or disabled with the CLI is refused within 2 s", async () => {
  const { gateway, pass } = await gatewayWithClock(
    configWith(channel({ name: "echo", protocol: "echo", models: ["echo"] })),
  );
  try {
    const revoked = await gateway.createKey({});
    const disabled = await gateway.createKey({});
    // Both served, so both are in the key cache: the slowest way to learn of a change.
    assert.equal((await chat(gateway, revoked.secret)).status, 200);
    assert.equal((await chat(gateway, disabled.secret)).status, 200);
    await cli(gateway, "key", "revoke", revoked.id);
    await cli(gateway, "key", "disable", disabled.id);
    pass(WITHIN_MS);
    assert.equal((await chat(gateway, revoked.secret)).status, 401);
    assert.equal((await chat(gateway, disabled.secret)).status, 401);
  } finally {
    await gateway.close();
  }
});
