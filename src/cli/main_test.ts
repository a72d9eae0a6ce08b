import assert from "node:assert/strict";
import { runCli } from "./main.ts";
import { withCli } from "./test_harness.ts";

function capture() {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    io: { stdout: (t: string) => stdout.push(t), stderr: (t: string) => stderr.push(t) },
    out: () => stdout.join("\n"),
    err: () => stderr.join("\n"),
  };
}

Deno.test("unknown command exits 2 with usage on stderr", async () => {
  const { io, out, err } = capture();
  assert.equal(await runCli(["frobnicate"], io, { env: () => undefined }), 2);
  assert.equal(out(), "");
  assert.match(err(), /^tollgate: Unknown command "frobnicate"\nUsage:\n {2}tollgate serve/);
  assert.match(err(), /tollgate key list/);
});

Deno.test("help prints usage on stdout and exits 0", async () => {
  const { io, out } = capture();
  assert.equal(await runCli(["--help"], io), 0);
  assert.match(out(), /^Usage:\n/);
  const group = capture();
  assert.equal(await runCli(["key", "--help"], group.io), 0);
  assert.match(group.out(), /^Usage:\n {2}tollgate key create/);
});

Deno.test("serve is delegated with the resolved config path", async () => {
  const calls: string[] = [];
  const serve = (options: { configPath: string }) => {
    calls.push(options.configPath);
    return Promise.resolve(0);
  };
  const env = (name: string) => name === "TOLLGATE_CONFIG" ? "from-env.toml" : undefined;
  const { io } = capture();
  assert.equal(await runCli([], io, { env, commands: { serve } }), 0);
  assert.equal(await runCli(["serve", "--config", "a.toml"], io, { env, commands: { serve } }), 0);
  assert.equal(await runCli(["--config", "b.toml"], io, { env, commands: { serve } }), 0);
  assert.deepEqual(calls, ["from-env.toml", "a.toml", "b.toml"]);
  const missing = capture();
  assert.equal(await runCli(["serve"], missing.io, { env }), 2);
  assert.equal(await runCli(["serve", "--port", "1"], missing.io, { env, commands: { serve } }), 2);
});

Deno.test("the database URL can come from $TOLLGATE_DATABASE_URL", async () => {
  await withCli(async (cli) => {
    const other = `${cli.dir}/other.db`;
    const env = (name: string) => name === "TOLLGATE_DATABASE_URL" ? `file:${other}` : undefined;
    assert.equal((await cli.run(["account", "create", "elsewhere"], { env })).code, 0);
    await Deno.stat(other);
    const here = await cli.run(["account", "list", "--json"]);
    assert.deepEqual(JSON.parse(here.stdout), []);
    const there = await cli.run(["account", "list", "--json"], { env });
    assert.equal(JSON.parse(there.stdout)[0].name, "elsewhere");
  });
});

Deno.test("unexpected failures exit 1 with one line and no stack", async () => {
  await withCli(async (cli) => {
    const env = (name: string) =>
      name === "TOLLGATE_DATABASE_URL" ? `file:${cli.dir}/no/such/dir/x.db` : undefined;
    const run = await cli.run(["account", "list"], { env });
    assert.equal(run.code, 1);
    assert.equal(run.stderr.split("\n").length, 1, run.stderr);
    assert.match(run.stderr, /^tollgate: /);
  });
});
