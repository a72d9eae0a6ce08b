import assert from "node:assert/strict";
import { type Config, parseConfig, type Problem, validateConfig } from "./schema.ts";
import { formatPath } from "./problems.ts";

/** The problems of `value` as `path: message` lines; fails if it is valid. */
function problemsOf(value: unknown): string[] {
  const result = validateConfig(value);
  assert.ok("problems" in result, "expected problems, got a valid config");
  return result.problems.map((problem: Problem) =>
    `${formatPath(problem.path)}: ${problem.message}`
  );
}

const ECHO = { name: "e", protocol: "echo", models: ["echo"] };
const DEFAULT_GROUP = { groups: { default: {} } };
/** An echo channel named `name` as read with every default. */
const echoRead = (name: string) => ({
  name,
  protocol: "echo" as const,
  keys: [],
  models: ["echo"],
  groups: ["default"],
  priority: 0,
  weight: 1,
  model_map: {},
  headers: {},
  timeouts: {},
});

/** A config with one channel that differs from a valid echo channel by `fields`. */
function withChannel(fields: Record<string, unknown>): Record<string, unknown> {
  return { ...DEFAULT_GROUP, channels: [{ ...ECHO, ...fields }] };
}

const FULL: Config = {
  server: {
    listen: "0.0.0.0:9000",
    entry_points: ["messages", "chat"],
    max_body_bytes: 1024,
    max_answer_bytes: 2048,
    max_header_bytes: 4096,
    max_headers: 20,
    max_answer_head_bytes: 8192,
    max_chunk_extension_bytes: 0,
    max_trailer_bytes: 512,
    trusted_proxies: ["10.0.0.0/8"],
    shutdown_grace_ms: 0,
    keepalive_ms: 5_000,
    request_log: false,
    log_format: "json",
    metrics: false,
    metrics_token: "m",
    cors_origins: ["https://app.example.com", "http://localhost:5173"],
    dashboard: false,
    tls_cert: "/etc/tollgate/cert.pem",
    tls_key: "/etc/tollgate/key.pem",
  },
  routing: { cache_affinity: false, affinity_ttl_s: 60 },
  failover: {
    retries: 0,
    retry_after_max_ms: 0,
    cooldown_ms: 1_000,
    max_attempts: 2,
    rescue_streams: false,
  },
  database: { url: "postgres://db/tollgate" },
  timeouts: { body: 5, connect: 1, first_byte: 2, idle: 3, total: 4 },
  responses: { store: false, retention_days: 7 },
  observability: { request_log_days: 30 },
  models: {
    "gpt-4.1": {
      context_window: 1_047_576,
      reasoning: false,
      max_output_tokens: 32_768,
      rpm: 60,
      tpm: 100_000,
      input_price: 2,
      output_price: 8,
      cached_input_price: 0.5,
      cache_write_price: 0,
      owned_by: "openai",
      display_name: "GPT-4.1",
    },
  },
  groups: {
    default: { models: ["*"], price_multiplier: 1 },
    vip: {
      models: ["gpt-4.1"],
      price_multiplier: 0.5,
      rpm: 1,
      tpm: 2,
      concurrency: 3,
      account_rpm: 4,
      account_tpm: 5,
      account_concurrency: 6,
    },
  },
  channels: [
    {
      name: "openai",
      protocol: "chat",
      base_url: "https://api.openai.com/v1",
      keys: ["k1", "k2"],
      models: ["gpt-4.1"],
      groups: ["default", "vip"],
      priority: -1,
      weight: 3,
      model_map: { "gpt-4.1": "gpt-4.1-2025-04-14" },
      headers: { "X-Team": "blue", "HTTP-Referer": "https://x.test/" },
      timeouts: { first_byte: 30_000 },
    },
    echoRead("echo"),
  ],
  budgets: { timezone: "+05:30", account: { usd: 500, period: "month" } },
  alerts: {
    thresholds: [0.5, 1],
    balance_below_usd: [10],
    key_expiry_days: 3,
    channels: false,
    webhooks: [{
      name: "ops",
      url: "https://hooks.example.com/t",
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      format: "standard",
      events: ["budget.exhausted"],
    }],
  },
};

Deno.test("validateConfig: an empty config takes every default", () => {
  assert.deepEqual(parseConfig({}), {
    server: {
      listen: "127.0.0.1:8080",
      entry_points: ["chat", "responses", "messages", "gemini"],
      max_body_bytes: 8_388_608,
      max_answer_bytes: 67_108_864,
      max_header_bytes: 65_536,
      max_headers: 100,
      max_answer_head_bytes: 65_536,
      max_chunk_extension_bytes: 1_024,
      max_trailer_bytes: 16_384,
      trusted_proxies: [],
      shutdown_grace_ms: 30_000,
      keepalive_ms: 15_000,
      request_log: true,
      log_format: "text",
      metrics: true,
      metrics_token: "",
      cors_origins: [],
      dashboard: true,
      tls_cert: "",
      tls_key: "",
    },
    routing: { cache_affinity: true, affinity_ttl_s: 3_600 },
    failover: {
      retries: 1,
      retry_after_max_ms: 5_000,
      cooldown_ms: 30_000,
      max_attempts: 6,
      rescue_streams: true,
    },
    database: { url: "file:tollgate.db" },
    timeouts: { body: 60_000, connect: 10_000, first_byte: 120_000, idle: 120_000, total: 900_000 },
    responses: { store: true, retention_days: 30 },
    observability: { request_log_days: 30 },
    models: {},
    groups: {},
    channels: [],
    budgets: { timezone: "UTC" },
    alerts: {
      thresholds: [0.5, 0.8, 0.95, 1],
      balance_below_usd: [],
      key_expiry_days: 7,
      channels: true,
      webhooks: [],
    },
  });
});

Deno.test("validateConfig: budgets and alerts are checked across their fields", () => {
  const problems = (value: unknown) => {
    const result = validateConfig(value);
    return "problems" in result ? result.problems.map((p) => p.message) : [];
  };
  assert.deepEqual(problems({ budgets: { timezone: "Mars/Olympus" } }), [
    'must be "UTC", an offset such as "+05:30", or an IANA time zone such as "Europe/Berlin"',
  ]);
  const hook = { name: "a", url: "https://h.test/", secret: "whsec_c2hvcnQ=" };
  assert.deepEqual(
    problems({
      alerts: { webhooks: [hook, { ...hook, secret: "", format: "slack", events: ["nope"] }] },
    }),
    [
      "a standard webhook needs a secret whsec_ followed by base64 (24 to 64 bytes)",
      'webhook name "a" is used twice',
      'must be "*" or one of "budget.threshold_crossed", "budget.exhausted", "balance.low", ' +
      '"key.expiring", "channel.down", "channel.up", "test"',
    ],
  );
  assert.deepEqual(problems({ alerts: { thresholds: [0.5, 1.5] } }), [
    "must be fractions of a budget above 0 and at most 1",
  ]);
  assert.deepEqual(
    parseConfig({ groups: { g: { key_budget: { usd: 5 } } } }).groups.g!.key_budget,
    { usd: 5, period: "month" },
  );
});

Deno.test("validateConfig: defaults of tables, groups and channels are filled in", () => {
  const config = parseConfig({
    server: { listen: "[::]:80" },
    timeouts: { idle: 5 },
    models: { m: {} },
    groups: { default: {} },
    channels: [ECHO],
  });
  assert.equal(config.server.max_body_bytes, 8_388_608);
  assert.deepEqual(config.timeouts, {
    body: 60_000,
    connect: 10_000,
    first_byte: 120_000,
    idle: 5,
    total: 900_000,
  });
  assert.deepEqual(config.models, { m: {} });
  assert.deepEqual(config.groups, { default: { models: ["*"], price_multiplier: 1 } });
  assert.deepEqual(config.channels, [echoRead("e")]);
});

Deno.test("validateConfig: every config gets fresh defaults, so changing one changes no other", () => {
  const first = parseConfig(withChannel({}));
  const channel = first.channels[0];
  assert.ok(channel);
  first.server.entry_points.push("chat");
  first.groups.default?.models.push("extra");
  channel.groups.push("extra");
  channel.headers["X-A"] = "a";
  channel.timeouts.idle = 1;
  const second = parseConfig(withChannel({}));
  assert.deepEqual(second.server.entry_points, ["chat", "responses", "messages", "gemini"]);
  assert.deepEqual(second.groups.default?.models, ["*"]);
  assert.deepEqual(second.channels[0]?.groups, ["default"]);
  assert.deepEqual(second.channels[0]?.headers, {});
  assert.deepEqual(second.channels[0]?.timeouts, {});
});

Deno.test("validateConfig: a full valid config round-trips unchanged, in fresh objects", () => {
  const input = structuredClone(FULL);
  const config = parseConfig(input);
  assert.deepEqual(config, FULL);
  assert.deepEqual(Object.keys(config.server), Object.keys(FULL.server), "the schema's key order");
  assert.notEqual(config.channels, input.channels);
  assert.notEqual(config.channels[0]?.keys, input.channels[0]?.keys);
  assert.notEqual(config.channels[0]?.headers, input.channels[0]?.headers);
  assert.deepEqual(parseConfig(config), FULL);
});

Deno.test("validateConfig: each kind of problem is reported at its path", () => {
  const cases: [string, unknown, string][] = [
    ["not a table", "x", "(top level): must be a table, got a string"],
    ["a table is an array", { server: [] }, "server: must be a table, got an array"],
    [
      "a string is a number",
      { server: { listen: 8080 } },
      'server.listen: must be "host:port", e.g. "127.0.0.1:8080" or "[::]:8080", got a number',
    ],
    [
      "a flag is a string",
      { server: { metrics: "yes" } },
      "server.metrics: must be true or false, got a string",
    ],
    [
      "an array is a string",
      { server: { trusted_proxies: "a" } },
      "server.trusted_proxies: must be an array, got a string",
    ],
    [
      "an array item",
      { server: { entry_points: ["chat", "grpc"] } },
      'server.entry_points[1]: must be one of "chat", "responses", "messages", "gemini"',
    ],
    [
      "a choice of another kind",
      { server: { log_format: 1 } },
      'server.log_format: must be one of "text", "json", got a number',
    ],
    [
      "a price below zero",
      { models: { "gpt-4.1": { input_price: -1 } } },
      'models."gpt-4.1".input_price: must be a non-negative number, got a negative number',
    ],
    [
      "a price that is text",
      { models: { m: { output_price: "free" } } },
      "models.m.output_price: must be a non-negative number, got a string",
    ],
    [
      "a negative grace",
      { server: { shutdown_grace_ms: -1 } },
      "server.shutdown_grace_ms: must be a non-negative integer, got a negative number",
    ],
    [
      "a fractional priority",
      withChannel({ priority: 0.5 }),
      "channels[0].priority: must be an integer, got a fraction",
    ],
    [
      "a record of the wrong kind",
      withChannel({ model_map: ["a"] }),
      "channels[0].model_map: must be a table, got an array",
    ],
    [
      "a record value",
      withChannel({ model_map: { a: 1 } }),
      "channels[0].model_map.a: must be a string, got a number",
    ],
    [
      "a required field",
      { channels: [{ name: "a", protocol: "echo" }] },
      "channels[0].models: is required",
    ],
    ["an empty name", withChannel({ name: "" }), "channels[0].name: must not be empty"],
    ["no models", withChannel({ models: [] }), "channels[0].models: must list at least one model"],
    [
      "an empty model",
      withChannel({ models: ["a", ""] }),
      "channels[0].models[1]: must not be empty",
    ],
    [
      "a channel timeout",
      withChannel({ timeouts: { idle: 0 } }),
      "channels[0].timeouts.idle: must be a positive integer, got zero",
    ],
    ["a date for a table", { database: new Date(0) }, "database: must be a table, got a date"],
  ];
  for (const [name, input, expected] of cases) {
    assert.deepEqual(problemsOf(input), [expected], name);
  }
});

Deno.test("validateConfig: an unknown key is reported at its table's own path, one problem each", () => {
  assert.deepEqual(problemsOf({ server: { bogus: 1, listen: "x:1", other: true } }), [
    'server: unknown key "bogus"',
    'server: unknown key "other"',
  ]);
  assert.deepEqual(problemsOf({ bogus: 1 }), ['(top level): unknown key "bogus"']);
  assert.deepEqual(problemsOf(withChannel({ timeouts: { slow: 1 } })), [
    'channels[0].timeouts: unknown key "slow"',
  ]);
  assert.deepEqual(problemsOf({ models: { m: { price: 1 } } }), ['models.m: unknown key "price"']);
});

Deno.test("validateConfig: a positive integer refuses fractions, zero, negatives and non-numbers", () => {
  const refused: [unknown, string][] = [
    [0, "zero"],
    [-0, "zero"],
    [-3, "a negative number"],
    [1.5, "a fraction"],
    [NaN, "nan (not a number)"],
    [Infinity, "an infinite number"],
    [2 ** 53, "an integer too large to hold exactly"],
    ["5", "a string"],
    [true, "true or false"],
    [null, "null"],
  ];
  const fields: [string, (value: unknown) => unknown, string][] = [
    ["server.max_body_bytes", (v) => ({ server: { max_body_bytes: v } }), "server.max_body_bytes"],
    ["timeouts.total", (v) => ({ timeouts: { total: v } }), "timeouts.total"],
    [
      "models.m.context_window",
      (v) => ({ models: { m: { context_window: v } } }),
      "models.m.context_window",
    ],
    [
      "groups.g.account_tpm",
      (v) => ({ groups: { g: { account_tpm: v } } }),
      "groups.g.account_tpm",
    ],
    ["channels[0].weight", (v) => withChannel({ weight: v }), "channels[0].weight"],
  ];
  for (const [name, build, path] of fields) {
    for (const [value, found] of refused) {
      assert.deepEqual(
        problemsOf(build(value)),
        [`${path}: must be a positive integer, got ${found}`],
        `${name} = ${String(value)}`,
      );
    }
    assert.ok("config" in validateConfig(build(1)), `${name} = 1`);
    assert.ok("config" in validateConfig(build(2 ** 53 - 1)), `${name} = 2^53 - 1`);
  }
});

Deno.test("validateConfig: listen is host:port, as the server splits it", () => {
  for (
    const listen of [
      "127.0.0.1:8080",
      "0.0.0.0:0",
      "[::]:80",
      "[::1]:65535",
      ":8080",
      "localhost:1",
    ]
  ) {
    assert.equal(parseConfig({ server: { listen } }).server.listen, listen);
  }
  const expected = 'server.listen: must be "host:port", e.g. "127.0.0.1:8080" or "[::]:8080"';
  for (
    const listen of ["127.0.0.1", "localhost", "", "::1:8080", "[::1]", "a:b", "a b:1", "a:-1"]
  ) {
    assert.deepEqual(problemsOf({ server: { listen } }), [expected], JSON.stringify(listen));
  }
  assert.deepEqual(problemsOf({ server: { listen: "a:65536" } }), [
    "server.listen: must have a port from 0 to 65535",
  ]);
});

Deno.test("validateConfig: the limits of [server], [timeouts], [routing] and [responses] are checked", () => {
  const cases: [unknown, string][] = [
    [
      { server: { max_answer_bytes: 0 } },
      "server.max_answer_bytes: must be a positive integer, got zero",
    ],
    [
      { server: { max_headers: 1.5 } },
      "server.max_headers: must be a positive integer, got a fraction",
    ],
    [
      { server: { max_trailer_bytes: -1 } },
      "server.max_trailer_bytes: must be a non-negative integer, got a negative number",
    ],
    [{ server: { dashboard: "no" } }, "server.dashboard: must be true or false, got a string"],
    [{ timeouts: { body: 0 } }, "timeouts.body: must be a positive integer, got zero"],
    [
      { routing: { cache_affinity: 1 } },
      "routing.cache_affinity: must be true or false, got a number",
    ],
    [{ routing: { affinity_ttl: 1 } }, 'routing: unknown key "affinity_ttl"'],
    [
      { responses: { retention_days: 0 } },
      "responses.retention_days: must be a positive integer, got zero",
    ],
    [{ responses: [] }, "responses: must be a table, got an array"],
    // A channel overrides the upstream timeouts only: the body's is the client's.
    [withChannel({ timeouts: { body: 1 } }), 'channels[0].timeouts: unknown key "body"'],
  ];
  for (const [input, expected] of cases) assert.deepEqual(problemsOf(input), [expected], expected);
});

Deno.test('validateConfig: cors_origins are "*" or origins as a browser sends them', () => {
  const origins = ["*", "https://app.example.com", "http://localhost:5173", "http://[::1]:8080"];
  assert.deepEqual(parseConfig({ server: { cors_origins: origins } }).server.cors_origins, origins);
  const expected = 'must be "*" or an origin such as "https://app.example.com" (no path)';
  for (
    const origin of [
      "https://app.example.com/",
      "https://a.test/x",
      "app.example.com",
      "",
      "ftp://a",
    ]
  ) {
    assert.deepEqual(
      problemsOf({ server: { cors_origins: ["*", origin] } }),
      [`server.cors_origins[1]: ${expected}`],
      JSON.stringify(origin),
    );
  }
});

Deno.test("validateConfig: tls_cert and tls_key come together or not at all", () => {
  assert.equal(
    parseConfig({ server: { tls_cert: "c.pem", tls_key: "k.pem" } }).server.tls_key,
    "k.pem",
  );
  const message = "tls_cert and tls_key are set together (HTTPS) or not at all";
  assert.deepEqual(problemsOf({ server: { tls_cert: "c.pem" } }), [`server.tls_key: ${message}`]);
  assert.deepEqual(problemsOf({ server: { tls_key: "k.pem" } }), [`server.tls_cert: ${message}`]);
});

Deno.test("validateConfig: base_url must parse as an http:// or https:// URL", () => {
  const accepted: [string, string][] = [
    ["http://a", "http://a"],
    ["https://api.example.com/v1", "https://api.example.com/v1"],
    ["HTTPS://X/y", "HTTPS://X/y"],
    ["http://[::1]:8080/", "http://[::1]:8080/"],
    // As zod did: surrounding space trimmed, and tabs and line breaks dropped as the URL parser drops them.
    ["  https://x.test/v1 ", "https://x.test/v1"],
    ["https://x.te\tst/", "https://x.test/"],
  ];
  for (const [url, output] of accepted) {
    const config = parseConfig(withChannel({ protocol: "chat", base_url: url }));
    assert.equal(config.channels[0]?.base_url, output, JSON.stringify(url));
  }
  const refused = [
    "",
    "api.example.com",
    "ftp://x",
    "ws://x",
    "javascript:alert(1)",
    "http:x",
    "https:/x",
    "http://",
    "http://[::1",
    "http://a b",
  ];
  for (const url of refused) {
    assert.deepEqual(
      problemsOf(withChannel({ protocol: "chat", base_url: url })),
      ["channels[0].base_url: must be a URL starting with http:// or https://"],
      JSON.stringify(url),
    );
  }
  assert.deepEqual(problemsOf(withChannel({ base_url: 1 })), [
    "channels[0].base_url: must be a URL starting with http:// or https://, got a number",
  ]);
});

Deno.test("validateConfig: header names are tokens and values are one line", () => {
  const config = parseConfig(
    withChannel({ headers: { "X-Team": "a b", "!#$%&'*+-.^_`|~09": "" } }),
  );
  assert.deepEqual(config.channels[0]?.headers, { "X-Team": "a b", "!#$%&'*+-.^_`|~09": "" });
  const name = "must be a header name: letters, digits and !#$%&'*+-.^_`|~";
  for (const header of ["X Team", "a:b", "", "é", "x\n"]) {
    assert.deepEqual(
      problemsOf(withChannel({ headers: { [header]: "v" } })),
      [`channels[0].headers.${JSON.stringify(header)}: ${name}`],
      JSON.stringify(header),
    );
  }
  for (const value of ["a\nb", "a\rb", "a\0b"]) {
    assert.deepEqual(problemsOf(withChannel({ headers: { "x-team": value } })), [
      "channels[0].headers.x-team: must be a header value on one line",
    ]);
  }
  assert.deepEqual(problemsOf(withChannel({ headers: { "x-team": 1 } })), [
    "channels[0].headers.x-team: must be a string, got a number",
  ]);
});

Deno.test("validateConfig: the checks across channels and groups", () => {
  assert.deepEqual(
    problemsOf({
      groups: { default: {} },
      channels: [
        { name: "a", protocol: "chat", models: ["m"] },
        { ...ECHO, name: "a", groups: ["default", "vip", "toString"] },
      ],
    }),
    [
      'channels[0].base_url: channel "a" needs a base_url',
      'channels[1].name: channel name "a" is used twice',
      'channels[1].groups: channel "a" names group "vip", which is not defined under [groups]',
      'channels[1].groups: channel "a" names group "toString", which is not defined under [groups]',
    ],
  );
});

Deno.test("validateConfig: fallbacks name served models or aliases and never lead back", () => {
  const channels = [{ ...ECHO, models: ["a", "b"] }];
  assert.deepEqual(
    problemsOf({
      ...DEFAULT_GROUP,
      channels,
      models: {
        a: { fallbacks: ["b", "typo"] },
        b: { fallbacks: ["alias"] },
        alias: { fallbacks: ["a"] },
      },
    }),
    [
      'models.a.fallbacks[1]: fallback "typo" of model "a" is served by no channel and is no alias',
      'models.a.fallbacks: fallbacks lead back to model "a": a -> b -> alias -> a',
      'models.b.fallbacks: fallbacks lead back to model "b": b -> alias -> a -> b',
      'models.alias.fallbacks: fallbacks lead back to model "alias": alias -> a -> b -> alias',
    ],
  );
  const alias = validateConfig({
    ...DEFAULT_GROUP,
    channels,
    models: { coder: { fallbacks: ["b", "a"] } },
  });
  assert.ok("config" in alias, "an alias whose chain is served is valid");
  assert.deepEqual(
    problemsOf(withChannel({ protocol: "responses", base_url: "http://r", prefill: true })),
    ['channels[0].prefill: channel "e" speaks responses, which cannot continue a prefill'],
  );
});

Deno.test("validateConfig: the checks across fields wait for well-formed fields, not for known keys", () => {
  const missingGroup = { channels: [{ name: "a", protocol: "echo", models: ["m"] }] };
  assert.deepEqual(problemsOf({ ...missingGroup, server: { listen: 1 } }), [
    'server.listen: must be "host:port", e.g. "127.0.0.1:8080" or "[::]:8080", got a number',
  ]);
  assert.deepEqual(problemsOf({ ...missingGroup, bogus: 1 }), [
    '(top level): unknown key "bogus"',
    'channels[0].groups: channel "a" names group "default", which is not defined under [groups]',
  ]);
});

Deno.test("validateConfig: every field at fault is reported, not only the first", () => {
  assert.deepEqual(
    problemsOf({
      server: { listen: 1, max_body_bytes: 0, log_format: "xml" },
      groups: { default: { rpm: -1, price_multiplier: -1 } },
      channels: [{ name: "", protocol: "grpc", models: [""], weight: 1.5 }],
    }),
    [
      'server.listen: must be "host:port", e.g. "127.0.0.1:8080" or "[::]:8080", got a number',
      "server.max_body_bytes: must be a positive integer, got zero",
      'server.log_format: must be one of "text", "json"',
      "groups.default.price_multiplier: must be a non-negative number, got a negative number",
      "groups.default.rpm: must be a positive integer, got a negative number",
      "channels[0].name: must not be empty",
      'channels[0].protocol: must be one of "chat", "responses", "messages", "gemini", "echo"',
      "channels[0].models[0]: must not be empty",
      "channels[0].weight: must be a positive integer, got a fraction",
    ],
  );
});

Deno.test("validateConfig: problems never quote the value, which may be a secret", () => {
  const secret = "sk-secret-123";
  const lines = problemsOf({
    server: { metrics_token: [secret], log_format: secret, max_body_bytes: secret },
    channels: [{ ...ECHO, base_url: secret, headers: { "x-key": `${secret}\n` }, keys: secret }],
  });
  assert.equal(lines.length, 6, lines.join("\n"));
  assert.ok(lines.every((line) => !line.includes(secret)), lines.join("\n"));
});

Deno.test("parseConfig: throws an Error listing every problem with its path", () => {
  assert.throws(
    () => parseConfig({ server: { metrics: 1, bogus: true } }),
    (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal(
        error.message,
        'Validating config failed:\n  server.metrics: must be true or false, got a number\n  server: unknown key "bogus"',
      );
      return true;
    },
  );
});
