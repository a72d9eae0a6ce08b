import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ConfigError,
  databaseUrl,
  type EnvLookup,
  fileUrlFrom,
  loadConfig,
  parseConfigText,
  resolveConfigPath,
} from "./load.ts";

const noEnv: EnvLookup = () => undefined;
const envOf = (vars: Record<string, string>): EnvLookup => (name) => vars[name];

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
    return error.problems;
  }
  assert.fail("expected a ConfigError");
}

const OPENAI_CHANNEL = `
[groups.default]
[[channels]]
name = "openai"
protocol = "chat"
base_url = "\${BASE}/v1"
keys = ["\${OPENAI_API_KEY}", "literal"]
models = ["gpt-4o-mini"]
headers = { "x-team" = "\${TEAM}-a" }
`;

Deno.test("config.example.toml loads with no environment variables", async () => {
  const example = fileURLToPath(new URL("../../config.example.toml", import.meta.url));
  const config = await loadConfig(example, { env: noEnv });
  assert.equal(config.server.listen, "127.0.0.1:8080");
  assert.equal(config.database.url, `file:${join(dirname(example), "tollgate.db")}`);
  assert.deepEqual(config.groups.default?.models, ["*"]);
  assert.deepEqual(config.models.echo, { context_window: 32768, max_output_tokens: 4096 });
  assert.equal(config.channels.length, 1);
  assert.equal(config.channels[0]?.protocol, "echo");
  assert.deepEqual(config.channels[0]?.models, ["echo"]);
});

Deno.test("parseConfigText expands ${VAR} in nested string values", () => {
  const config = parseConfigText(
    OPENAI_CHANNEL,
    { env: envOf({ BASE: "https://api.example.com", OPENAI_API_KEY: "sk-up", TEAM: "blue" }) },
  );
  const channel = config.channels[0];
  assert.equal(channel?.base_url, "https://api.example.com/v1");
  assert.deepEqual(channel?.keys, ["sk-up", "literal"]);
  assert.deepEqual(channel?.headers, { "x-team": "blue-a" });
});

Deno.test("parseConfigText does not expand keys", () => {
  const config = parseConfigText(`[models."\${X}"]\ncontext_window = 1`, {
    env: envOf({ X: "y" }),
  });
  assert.deepEqual(Object.keys(config.models), ["${X}"]);
});

Deno.test("a missing variable is an error naming it and where it is used", () => {
  const problems = problemsOf(() =>
    parseConfigText(OPENAI_CHANNEL, { env: envOf({ BASE: "https://api.example.com", TEAM: "t" }) })
  );
  assert.deepEqual(problems, [
    'channels[0].keys[0]: environment variable "OPENAI_API_KEY" is not set; set it or change this value (line 7)',
  ]);
});

Deno.test("with secrets ignored, a channel's unset variables are left as written", () => {
  const config = parseConfigText(OPENAI_CHANNEL, { env: noEnv, secrets: "ignored" });
  const channel = config.channels[0];
  assert.equal(channel?.base_url, "${BASE}/v1");
  assert.deepEqual(channel?.keys, ["${OPENAI_API_KEY}", "literal"]);
  assert.deepEqual(channel?.headers, { "x-team": "${TEAM}-a" });
});

Deno.test("with secrets ignored, the database's variables are still needed", () => {
  const text = `[database]\nurl = "file:\${DATA_DIR}/t.db"\n${OPENAI_CHANNEL}`;
  assert.deepEqual(problemsOf(() => parseConfigText(text, { env: noEnv, secrets: "ignored" })), [
    'database.url: environment variable "DATA_DIR" is not set; set it or change this value (line 2)',
  ]);
});

Deno.test("with secrets ignored, an unset variable is reported when the config is invalid anyway", () => {
  const text = `${OPENAI_CHANNEL}protocol_typo = 1\n`;
  const problems = problemsOf(() => parseConfigText(text, { env: noEnv, secrets: "ignored" }));
  assert.ok(
    problems.includes('channels[0]: unknown key "protocol_typo" (line 10)'),
    problems.join("\n"),
  );
  assert.ok(problems.some((p) => p.includes('"OPENAI_API_KEY" is not set')), problems.join("\n"));
});

Deno.test("an unset variable in a URL is reported once, not again as a bad URL", () => {
  const problems = problemsOf(() =>
    parseConfigText(OPENAI_CHANNEL, { env: envOf({ OPENAI_API_KEY: "k", TEAM: "t" }) })
  );
  assert.equal(problems.length, 1);
  assert.match(problems[0] ?? "", /^channels\[0\]\.base_url: environment variable "BASE"/);
});

Deno.test("schema problems are collected with their paths", () => {
  const text = `
[server]
listen = 8080
bogus = true
[groups.default]
rpm = -1
[models."gpt-4.1"]
input_price = "free"
[[channels]]
name = "x"
protocol = "chat"
models = []
`;
  const problems = problemsOf(() => parseConfigText(text, { env: noEnv }));
  assert.ok(problems.some((p) => p.startsWith("server.listen: ")), problems.join("\n"));
  assert.ok(problems.some((p) => p.startsWith("server: ") && p.includes("bogus")));
  assert.ok(problems.some((p) => p.startsWith("groups.default.rpm: ")));
  assert.ok(problems.some((p) => p.startsWith('models."gpt-4.1".input_price: ')));
  assert.ok(problems.some((p) => p.startsWith("channels[0].models: ")));
});

Deno.test("cross-field checks name the channel", () => {
  const problems = problemsOf(() =>
    parseConfigText(`[[channels]]\nname = "a"\nprotocol = "echo"\nmodels = ["echo"]`, {
      env: noEnv,
    })
  );
  assert.deepEqual(problems, [
    'channels[0].groups: channel "a" names group "default", which is not defined under [groups] (line 1)',
  ]);
});

Deno.test("each problem names the line of its key, an unknown key's own", () => {
  const text = `[server]\nlisten = 8080\nbogus = true\n[groups.default]\n[[channels]]\n` +
    `name = "x"\nprotocol = "chat"\nmodels = ["m"]\nkeys = ["\${NOPE}"]\n`;
  assert.deepEqual(problemsOf(() => parseConfigText(text, { env: noEnv })), [
    'channels[0].keys[0]: environment variable "NOPE" is not set; set it or change this value (line 9)',
    'server.listen: must be "host:port", e.g. "127.0.0.1:8080" or "[::]:8080", got a number (line 2)',
    'server: unknown key "bogus" (line 3)',
  ]);
});

Deno.test("TOML syntax errors carry line and column", () => {
  const problems = problemsOf(() =>
    parseConfigText('a = 1\nb = "x\n', { env: noEnv, source: "bad.toml" })
  );
  assert.equal(problems.length, 1);
  assert.match(problems[0] ?? "", /^line 2, column \d+: TOML syntax error: /);
  assert.throws(
    () => parseConfigText("[x", { env: noEnv, source: "bad.toml" }),
    /^ConfigError: Loading config "bad\.toml" failed with 1 problem; fix and try again:\n {2}line 1/,
  );
});

Deno.test("loadConfig reports a missing file with what to do", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const error = await loadConfig(join(dir, "nope.toml"), { env: noEnv }).catch((e) => e);
    assert.ok(error instanceof ConfigError);
    assert.match(error.message, /does not exist; pass --config PATH/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("resolveConfigPath prefers the flag, then $TOLLGATE_CONFIG", () => {
  assert.equal(resolveConfigPath("a.toml", envOf({ TOLLGATE_CONFIG: "b.toml" })), "a.toml");
  assert.equal(resolveConfigPath(undefined, envOf({ TOLLGATE_CONFIG: "b.toml" })), "b.toml");
  const fallback = resolveConfigPath(undefined, noEnv);
  assert.ok(fallback === "config.toml" || fallback === "config.example.toml");
});

Deno.test("databaseUrl honours $TOLLGATE_DATABASE_URL", () => {
  const config = parseConfigText(`[database]\nurl = "file:a.db"`, { env: noEnv });
  assert.equal(databaseUrl(config, noEnv), "file:a.db");
  assert.equal(databaseUrl(config, envOf({ TOLLGATE_DATABASE_URL: "file:b.db" })), "file:b.db");
});

Deno.test("a relative file: database and TLS files are found beside the config file, whatever the working directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(join(dir, "etc"));
    const path = join(dir, "etc", "config.toml");
    await Deno.writeTextFile(
      path,
      `[server]\ntls_cert = "tls/cert.pem"\ntls_key = "/abs/key.pem"\n` +
        `[database]\nurl = "file:data/tollgate.db?mode=rwc"`,
    );
    const config = await loadConfig(path, { env: noEnv });
    assert.equal(config.database.url, `file:${join(dir, "etc", "data", "tollgate.db")}?mode=rwc`);
    assert.equal(config.server.tls_cert, join(dir, "etc", "tls", "cert.pem"));
    assert.equal(config.server.tls_key, "/abs/key.pem");
    // The operator's own variable is the shell's: taken as given.
    const env = envOf({ TOLLGATE_DATABASE_URL: "file:here.db" });
    assert.equal(databaseUrl(await loadConfig(path, { env }), env), "file:here.db");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fileUrlFrom resolves only a relative file path", () => {
  const cases: [string, string][] = [
    ["file:tollgate.db", "file:/srv/tollgate.db"],
    ["file:./a/../b.db", "file:/srv/b.db"],
    ["file:../up.db?x=1", "file:/up.db?x=1"],
    ["file:/abs/t.db", "file:/abs/t.db"],
    ["file:///abs/t.db", "file:///abs/t.db"],
    ["file::memory:", "file::memory:"],
    ["libsql://db.example.com", "libsql://db.example.com"],
    ["postgres://u@h/db", "postgres://u@h/db"],
  ];
  for (const [url, expected] of cases) assert.equal(fileUrlFrom(url, "/srv"), expected, url);
  assert.equal(
    parseConfigText(`[database]\nurl = "file:t.db"`, { env: noEnv }).database.url,
    "file:t.db",
  );
});

Deno.test("a channel header that HTTP cannot carry is a config problem, not a failed request", () => {
  const channel = (headers: string) =>
    `[groups.default]\n[[channels]]\nname = "a"\nprotocol = "echo"\nmodels = ["echo"]\nheaders = ${headers}\n`;
  const problems = problemsOf(() =>
    parseConfigText(channel('{ "X Team" = "blue" }'), { env: noEnv })
  );
  assert.ok(
    problems.some((p) => p.startsWith('channels[0].headers."X Team"')),
    problems.join("\n"),
  );
  const value = problemsOf(() =>
    parseConfigText(channel('{ "x-team" = "a\\nb" }'), { env: noEnv })
  );
  assert.ok(value.some((p) => p.startsWith("channels[0].headers.x-team")), value.join("\n"));
  const config = parseConfigText(
    channel('{ "X-Team" = "blue", "HTTP-Referer" = "https://x.test/" }'),
    { env: noEnv },
  );
  assert.deepEqual(config.channels[0]?.headers, {
    "X-Team": "blue",
    "HTTP-Referer": "https://x.test/",
  });
});
