import assert from "node:assert/strict";
import { join } from "node:path";
import { harnessConfig, withCli } from "./test_harness.ts";

const SECRET_CHANNEL = [
  `[[channels]]`,
  `name = "openai"`,
  `protocol = "chat"`,
  `base_url = "\${OPENAI_BASE}/v1"`,
  `keys = ["\${OPENAI_API_KEY}"]`,
  `models = ["gpt-4o-mini"]`,
  "",
].join("\n");

Deno.test("commands that manage accounts, keys and usage run without the channels' secrets", async () => {
  await withCli(async (cli) => {
    await Deno.writeTextFile(cli.configPath, harnessConfig(cli.dbPath) + SECRET_CHANNEL);
    for (
      const args of [
        ["account", "create", "team", "--balance", "5"],
        ["key", "create", "--account", "team", "--json"],
        ["account", "list", "--json"],
        ["key", "list", "--json"],
        ["usage", "--json"],
      ]
    ) {
      const run = await cli.run(args);
      assert.equal(run.code, 0, `${args.join(" ")}: ${run.stderr}`);
    }
    // What `serve` would refuse, `config check` refuses too.
    const check = await cli.run(["config", "check"]);
    assert.equal(check.code, 1);
    assert.match(check.stderr, /channels\[1\]\.base_url: environment variable "OPENAI_BASE"/);
    assert.match(check.stderr, /channels\[1\]\.keys\[0\]: environment variable "OPENAI_API_KEY"/);
  });
});

Deno.test("a command run from another folder opens the database beside its config", async () => {
  await withCli(async (cli) => {
    await Deno.mkdir(join(cli.dir, "etc"));
    const configPath = join(cli.dir, "etc", "config.toml");
    await Deno.writeTextFile(
      configPath,
      harnessConfig("tollgate.db"),
    );
    const created = await cli.run(["account", "create", "team", "--config", configPath]);
    assert.equal(created.code, 0, created.stderr);
    await Deno.stat(join(cli.dir, "etc", "tollgate.db"));
    const listed = await cli.run(["account", "list", "--json", "--config", configPath]);
    assert.deepEqual(JSON.parse(listed.stdout).map((a: { name: string }) => a.name), ["team"]);
  });
});
