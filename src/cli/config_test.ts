import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";
import { z } from "zod";
import { runCli } from "./main.ts";
import { redactUrl } from "./output.ts";
import { withCli } from "./test_harness.ts";

Deno.test("config check summarises a valid config", async () => {
  await withCli(async (cli) => {
    const run = await cli.run(["config", "check"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const out = run.stdout;
    assert.match(out, /^Config ".*config\.toml" is valid\./);
    assert.match(out, /listen: +127\.0\.0\.1:8080/);
    assert.match(out, /entry points: +chat, responses, messages/);
    assert.match(out, /groups: +2 \(default, vip\)/);
    assert.match(out, /models: +1 \(echo\)/);
    assert.match(out, /channels: +1\n +NAME +PROTOCOL/);
    assert.match(out, /\n +echo +echo +echo +default,vip +0/);
    assert.match(out, new RegExp(`database: +file:${cli.dbPath}`));
  });
});

Deno.test("config check of the example config passes with no environment", async () => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const example = fileURLToPath(new URL("../../config.example.toml", import.meta.url));
  const code = await runCli(
    ["config", "check", "--config", example],
    { stdout: (t) => stdout.push(t), stderr: (t) => stderr.push(t) },
    { env: () => undefined },
  );
  assert.equal(code, 0, stderr.join("\n"));
  assert.match(stdout.join("\n"), /channels: +1\n/);
});

Deno.test("config check honours $TOLLGATE_DATABASE_URL and redacts secrets", async () => {
  await withCli(async (cli) => {
    const env = (name: string) =>
      name === "TOLLGATE_DATABASE_URL"
        ? "libsql://user:hunter2@db.example.com?authToken=abc.def"
        : undefined;
    const run = await cli.run(["config", "check"], { env });
    assert.equal(run.code, 0);
    assert.doesNotMatch(run.stdout, /hunter2|abc\.def/);
    assert.match(
      run.stdout,
      /database: +libsql:\/\/user:\*\*\*@db\.example\.com\/?\?authToken=\*\*\*/,
    );
  });
});

Deno.test("config check finds the config through $TOLLGATE_CONFIG", async () => {
  await withCli(async (cli) => {
    const stdout: string[] = [];
    const code = await runCli(["config", "check"], {
      stdout: (t) => stdout.push(t),
      stderr: () => {},
    }, { env: (name) => name === "TOLLGATE_CONFIG" ? cli.configPath : undefined });
    assert.equal(code, 0);
    assert.match(stdout.join("\n"), /groups: +2/);
  });
});

Deno.test("config check of an invalid config exits 1 with every problem", async () => {
  await withCli(async (cli) => {
    const bad = join(cli.dir, "bad.toml");
    await Deno.writeTextFile(
      bad,
      `[server]\nlisten = 1\n[[channels]]\nname = "x"\nprotocol = "chat"\nkeys = ["\${NOPE}"]\nmodels = ["m"]\n`,
    );
    const run = await cli.run(["config", "check", "--config", bad]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^Loading config ".*bad\.toml" failed with \d+ problems/);
    assert.match(run.stderr, /\n {2}server\.listen: /);
    assert.match(
      run.stderr,
      /\n {2}channels\[0\]\.keys\[0\]: environment variable "NOPE" is not set/,
    );
  });
});

Deno.test("config check prints the database resolved beside the config file", async () => {
  await withCli(async (cli) => {
    const nested = join(cli.dir, "etc", "config.toml");
    await Deno.mkdir(join(cli.dir, "etc"));
    await Deno.writeTextFile(nested, `[database]\nurl = "file:tollgate.db"\n`);
    const run = await cli.run(["config", "check", "--config", nested]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(`database: +file:${join(cli.dir, "etc", "tollgate.db")}$`, "m"),
    );
  });
});

Deno.test("config check refuses a listen without a port, as serve would", async () => {
  await withCli(async (cli) => {
    const config = join(cli.dir, "noport.toml");
    await Deno.writeTextFile(config, `[server]\nlisten = "0.0.0.0"\n`);
    const run = await cli.run(["config", "check", "--config", config]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /\n {2}server\.listen: must be "host:port"/);
  });
});

Deno.test("config check warns of a model served without a price, and still passes", async () => {
  await withCli(async (cli) => {
    const config = join(cli.dir, "unpriced.toml");
    await Deno.writeTextFile(
      config,
      `[groups.default]\n[[channels]]\nname = "openai"\nprotocol = "chat"\n` +
        `base_url = "https://api.openai.com/v1"\nmodels = ["gpt-4o-mini"]\n`,
    );
    const run = await cli.run(["config", "check", "--config", config]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /is valid/);
    assert.equal(
      run.stderr,
      'Warning: model "gpt-4o-mini" (channel "openai") has no input_price or output_price: ' +
        "its requests cost nothing; set input_price and output_price under " +
        '[models."gpt-4o-mini"].',
    );
  });
});

Deno.test("config schema prints a JSON Schema that takes the example config and refuses a bad one", async () => {
  const stdout: string[] = [];
  const code = await runCli(["config", "schema"], {
    stdout: (t) => stdout.push(t),
    stderr: () => {},
  }, { env: () => undefined });
  assert.equal(code, 0);
  const schema = JSON.parse(stdout.join("\n"));
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(schema.properties.channels.items.required, ["name", "protocol", "models"]);
  assert.equal(schema.properties.server.properties.max_body_bytes.default, 8_388_608);
  // Read back by a JSON Schema reader (zod's own), as an editor would use it.
  const editor = z.fromJSONSchema(schema);
  const example = fileURLToPath(new URL("../../config.example.toml", import.meta.url));
  assert.ok(editor.safeParse(parse(await Deno.readTextFile(example))).success);
  const bad = editor.safeParse({ server: { bogus: 1 }, channels: [{ name: "a", models: [] }] });
  assert.deepEqual(bad.error?.issues.map((issue) => issue.path.join(".")), [
    "server",
    "channels.0.protocol",
    "channels.0.models",
  ]);
});

Deno.test("config check of a missing file exits 1", async () => {
  await withCli(async (cli) => {
    const run = await cli.run(["config", "check", "--config", join(cli.dir, "none.toml")]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /does not exist/);
  });
});

Deno.test("redactUrl hides passwords and tokens only", () => {
  assert.equal(redactUrl("file:tollgate.db"), "file:tollgate.db");
  assert.equal(redactUrl("libsql://db.example.com"), "libsql://db.example.com");
  assert.equal(redactUrl("http://u:p@h:8080/x"), "http://u:***@h:8080/x");
  assert.equal(redactUrl("libsql://h?authToken=s&tls=1"), "libsql://h?authToken=***&tls=1");
});
