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

Deno.test("--config goes before or after the command, with a space or an =", async () => {
  await withCli(async (cli) => {
    const before = await cli.run(["--config", cli.configPath, "account", "create", "early"]);
    assert.equal(before.code, 0, before.stderr);
    const equals = await cli.run([`--config=${cli.configPath}`, "account", "list", "--json"]);
    assert.equal(equals.code, 0, equals.stderr);
    assert.deepEqual(JSON.parse(equals.stdout).map((a: { name: string }) => a.name), ["early"]);
    const between = await cli.run(["account", "--config", cli.configPath, "list", "--json"]);
    assert.equal(JSON.parse(between.stdout).length, 1);
    // The last one counts, as for any flag; a missing value is bad usage.
    const elsewhere = await cli.run([
      "--config",
      `${cli.dir}/missing.toml`,
      "account",
      "list",
      "--config",
      cli.configPath,
    ]);
    assert.equal(elsewhere.code, 0, elsewhere.stderr);
    const missing = await cli.run(["account", "list", "--config"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--config/);
  });
});

Deno.test("--version prints the version written in deno.json", async () => {
  const manifest = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  );
  assert.match(manifest.version, /^\d+\.\d+\.\d+/);
  for (const args of [["--version"], ["--config", "x.toml", "--version"]]) {
    const { io, out } = capture();
    assert.equal(await runCli(args, io), 0);
    assert.equal(out(), `tollgate ${manifest.version}`);
  }
});

Deno.test("--help on any command lists each of its flags with a line on it", async () => {
  const help = async (...args: string[]) => {
    const { io, out } = capture();
    assert.equal(await runCli(args, io), 0, args.join(" "));
    return out();
  };
  const update = await help("key", "update", "--help");
  assert.match(update, /^Usage:\n {2}tollgate key update KEY_ID/);
  for (
    const flag of [
      "--name L",
      "--group G",
      "--quota TOKENS",
      "--expires T",
      "--models m1,m2",
      "--allow-ip CIDR,...",
      "--admin",
      "--no-admin",
      "--config PATH",
      "--help",
    ]
  ) {
    assert.match(update, new RegExp(`\\n {2}${flag.replace(/\./g, "\\.")} +\\w`), flag);
  }
  // Every command and subcommand: each option line names a flag and says something of it.
  const commands = [
    ["serve"],
    ["config", "check"],
    ...["create", "topup", "enable", "disable", "list"].map((sub) => ["account", sub]),
    ...["create", "list", "update", "enable", "disable", "revoke"].map((sub) => ["key", sub]),
    ["usage"],
    ["requests"],
    ["doctor"],
  ];
  for (const command of commands) {
    const text = await help(...command, "--help");
    const options = text.split("\nOptions:\n")[1];
    assert.ok(options, `${command.join(" ")} has an Options section`);
    for (const line of options.split("\n")) {
      assert.match(line, /^ {2}--[a-z-]+( \S+)? {2,}\S.{8,}$/, `${command.join(" ")}: ${line}`);
    }
  }
  assert.match(await help("key", "--help"), /\n {2}key update +Changes a key/);
  assert.match(await help("help", "usage"), /--bucket hour\|day +also sum by hour or by day/);
});

Deno.test("README's command list and --help agree on every option and its values", async () => {
  const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
  const block = /```\n(tollgate serve [\s\S]*?)```/.exec(readme)?.[1] ?? "";
  // Each command starts a line; its options may go on over the lines indented under it.
  const commands = block.split(/\n(?=tollgate )/).map((text) => text.replace(/\s+/g, " "));
  assert.ok(commands.length >= 10, block);
  for (const command of commands) {
    // The command's words: up to its first argument or option.
    const words = command.replace(/^tollgate /, "").split(" ");
    const end = words.findIndex((word) => !/^[a-z][a-z|]*$/.test(word));
    const path = words.slice(0, end).map((word) => word.split("|")[0]!);
    const { io, out } = capture();
    assert.equal(await runCli([...path, "--help"], io), 0, path.join(" "));
    const help = out().replace(/\s+/g, " ");
    for (const [option] of command.matchAll(/\[[^\]]+\]/g)) {
      assert.ok(help.includes(option), `tollgate ${path.join(" ")} --help lacks ${option}`);
    }
  }
});
