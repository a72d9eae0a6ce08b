/**
 * The admin API over real HTTP, against the CLI's own answers on the same database: after
 * real traffic through the gateway its usage, requests, accounts and keys are the CLI's
 * `--json` to the micro-USD; it manages accounts and keys as the CLI does; and it answers
 * 401 without a key, 403 to a key that is not an admin key (but for /me), 400 naming the
 * field of a bad value, in the gateway's error shape.
 */
import assert from "node:assert/strict";
import type { ChannelJson } from "../src/admin/channels.ts";
import type { ChannelCheckJson } from "../src/admin/channel_check.ts";
import type { CreatedKeyJson, KeyJson, UpdatedKeyJson } from "../src/admin/keys.ts";
import type { UsageReport } from "../src/admin/usage.ts";
import { adminFetch, adminJson, cliJson } from "./admin_support.ts";
import { channel, configWith, type TestGateway } from "./harness.ts";
import {
  assertOpenAiError,
  chatBody,
  closedPort,
  replaceConfig,
  type Scope,
  withScope,
} from "./support.ts";

const PRICES = `
[models.echo]
input_price = 1.25
output_price = 3.5
[models.cached]
input_price = 2
output_price = 8
cached_input_price = 0.5
`;

/** A gateway with an echo channel, a chat channel that reports cache reads, and one that is down. */
async function adminGateway(s: Scope): Promise<{ gateway: TestGateway; admin: string }> {
  const fake = await s.fake({ name: "up", models: ["cached"], behaviour: { cachedTokens: 4 } });
  const channels = channel({ name: "echo", protocol: "echo", models: ["echo"] }) +
    channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["cached"] }) +
    channel({
      name: "down",
      protocol: "chat",
      baseUrl: `http://127.0.0.1:${closedPort()}/v1`,
      models: ["down"],
      keys: ["sk-up"],
    });
  const gateway = await s.gateway(configWith(channels, PRICES));
  return { gateway, admin: gateway.server.firstKey! };
}

/** Sends chat requests (streamed and not) for each key and model; each must answer `status`. */
async function traffic(gateway: TestGateway, keys: string[], models: string[], status = 200) {
  for (const key of keys) {
    for (const model of models) {
      for (const stream of [false, true]) {
        const body = chatBody(model, `hello from ${model}`, stream ? { stream: true } : {});
        const response = await gateway.post("/v1/chat/completions", key, body);
        await response.text();
        assert.equal(response.status, status, `${model} stream=${stream}`);
      }
    }
  }
  await gateway.server.settled();
}

/** The flags `--name value` as a query string. */
function queryOf(flags: string[]): string {
  const query = new URLSearchParams();
  for (let i = 0; i < flags.length; i += 2) query.set(flags[i]!.slice(2), flags[i + 1]!);
  return query.toString();
}

Deno.test("admin API: usage, requests, accounts and keys are the CLI's --json, to the micro-USD", async () => {
  await withScope(async (s) => {
    const { gateway, admin } = await adminGateway(s);
    const alice = await gateway.createKey({ account: "alice", balanceUsd: "5" });
    const bob = await gateway.createKey({ account: "bob" });
    await traffic(gateway, [admin, alice.secret, bob.secret], ["echo", "cached"]);
    await traffic(gateway, [bob.secret], ["down"], 502);

    const since = new Date(Date.now() - 3_600_000).toISOString();
    const until = new Date(Date.now() + 1_000).toISOString();
    const selections = [
      [],
      ["--since", since, "--until", until],
      ["--account", "alice"],
      ["--key", bob.id],
      ["--model", "cached", "--since", since, "--until", until, "--bucket", "hour"],
      ["--since", since, "--until", until, "--bucket", "day"],
    ];
    for (const flags of selections) {
      const api = await adminJson<UsageReport>(gateway, `/admin/api/usage?${queryOf(flags)}`, {
        key: admin,
      });
      assert.deepEqual(api, await cliJson(gateway, "usage", ...flags), flags.join(" "));
    }
    const all = await adminJson<UsageReport>(gateway, "/admin/api/usage", { key: admin });
    const ledger = await gateway.ledger();
    assert.equal(all.totals.requests, ledger.length);
    assert.equal(all.totals.requests, 14, "12 served, 2 failed");
    assert.equal(all.totals.errors, 2);
    assert.ok(all.totals.cached_tokens > 0, "the cache reads were counted");
    const micros = ledger.reduce((sum, row) => sum + row.cost_micros, 0);
    assert.ok(micros > 0);
    assert.equal(Math.round(all.totals.cost_usd * 1e6), micros, "exact to the micro-USD");

    for (
      const flags of [
        ["--limit", "5"],
        ["--account", "alice", "--model", "cached"],
        ["--status", "failed"],
        ["--key", bob.id, "--limit", "2", "--offset", "1"],
        ["--before", String(ledger[6]!.id), "--limit", "3"],
      ]
    ) {
      const api = await adminJson(gateway, `/admin/api/requests?${queryOf(flags)}`, {
        key: admin,
      });
      assert.deepEqual(api, await cliJson(gateway, "requests", ...flags), flags.join(" "));
    }
    assert.deepEqual(
      await adminJson(gateway, "/admin/api/accounts", { key: admin }),
      await cliJson(gateway, "account", "list"),
    );
    assert.deepEqual(
      await adminJson(gateway, "/admin/api/keys?account=bob", { key: admin }),
      await cliJson(gateway, "key", "list", "--account", "bob"),
    );

    // Any key reads its own key, account and usage; the same records the CLI lists.
    const me = await adminJson<Record<string, unknown>>(gateway, "/admin/api/me", {
      key: alice.secret,
    });
    const keys = await cliJson<KeyJson[]>(gateway, "key", "list");
    const accounts = await cliJson<{ name: string }[]>(gateway, "account", "list");
    assert.deepEqual(me, {
      key: keys.find((key) => key.id === alice.id),
      account: accounts.find((account) => account.name === "alice"),
      usage: await cliJson(gateway, "usage", "--key", alice.id),
    });

    const channels = await adminJson<ChannelJson[]>(gateway, "/admin/api/channels", {
      key: admin,
    });
    assert.deepEqual(channels.map((c) => [c.name, c.protocol]), [
      ["echo", "echo"],
      ["up", "chat"],
      ["down", "chat"],
    ]);
    const up = channels.find((c) => c.name === "up")!;
    assert.equal(up.requests, 6);
    assert.equal(up.errors, 0);
    assert.equal(typeof up.p50_ms, "number");
    const down = channels.find((c) => c.name === "down")!;
    assert.ok(down.errors >= 2 && down.requests === down.errors, JSON.stringify(down));
    assert.match(down.last_error ?? "", /could not be reached/);
  });
});

Deno.test("admin API: accounts and keys are managed as the CLI manages them", async () => {
  await withScope(async (s) => {
    const { gateway, admin } = await adminGateway(s);
    const call = { key: admin };
    assert.deepEqual(
      await adminJson(gateway, "/admin/api/accounts", { ...call, body: { name: "team" } }, 201),
      {
        name: "team",
        enabled: true,
        unlimited: false,
        balance_usd: 0,
        held_usd: 0,
        available_usd: 0,
        budget_usd: null,
        budget_period: null,
        budget_source: null,
        budget_spent_usd: 0,
        budget_renews_at: null,
      },
    );
    const topped = await adminJson<{ balance_usd: number }>(
      gateway,
      "/admin/api/accounts/team/topup",
      { ...call, body: { usd: "2.000001" } },
    );
    assert.equal(topped.balance_usd, 2.000001);
    const created = await adminJson<{ id: string; key: string }>(gateway, "/admin/api/keys", {
      ...call,
      body: {
        account: "team",
        name: "ci",
        quota_tokens: 10_000,
        models: ["echo"],
        allow_ips: ["127.0.0.1"],
        expires_at: "2100-01-01",
      },
    }, 201);
    assert.match(created.key, /^sk-[0-9A-Za-z]{40,}$/);
    // The new key works at once (the key cache has never seen it).
    const response = await gateway.post("/v1/chat/completions", created.key, chatBody("echo"));
    assert.equal(response.status, 200, await response.text());
    await gateway.server.settled();

    const { warnings, ...updated } = await adminJson<UpdatedKeyJson>(
      gateway,
      `/admin/api/keys/${created.id}`,
      {
        ...call,
        method: "PATCH",
        body: { name: "deploys", models: null, allow_ips: null, quota_tokens: null },
      },
    );
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      [updated.name, updated.models, updated.allow_ips, updated.quota_tokens],
      ["deploys", null, null, null],
    );
    const listed = await cliJson<KeyJson[]>(gateway, "key", "list", "--account", "team");
    assert.deepEqual(listed, [updated]);
    await adminJson(gateway, `/admin/api/keys/${created.id}`, {
      ...call,
      method: "PATCH",
      body: { enabled: false },
    });
    const revoked = await adminJson<KeyJson>(gateway, `/admin/api/keys/${created.id}`, {
      ...call,
      method: "DELETE",
    });
    assert.deepEqual([revoked.enabled, revoked.revoked], [false, true]);
    await assertOpenAiError(
      await adminFetch(gateway, `/admin/api/keys/${created.id}`, {
        ...call,
        method: "PATCH",
        body: { enabled: true },
      }),
      409,
      "conflict",
    );
    const disabled = await adminJson<{ enabled: boolean }>(gateway, "/admin/api/accounts/team", {
      ...call,
      method: "PATCH",
      body: { enabled: false },
    });
    assert.equal(disabled.enabled, false);
    assert.deepEqual(
      await cliJson(gateway, "account", "list"),
      await adminJson(gateway, "/admin/api/accounts", call),
    );
    await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/accounts/nobody/topup", { ...call, body: { usd: 1 } }),
      404,
      "not_found",
    );
  });
});

/** Every route of the API, with a body where it takes one. */
const ROUTES: [string, string, unknown?][] = [
  ["GET", "/admin/api/accounts"],
  ["POST", "/admin/api/accounts", { name: "x" }],
  ["PATCH", "/admin/api/accounts/admin", { enabled: true }],
  ["POST", "/admin/api/accounts/admin/topup", { usd: 1 }],
  ["GET", "/admin/api/keys"],
  ["POST", "/admin/api/keys", { account: "admin" }],
  ["PATCH", "/admin/api/keys/key_none", { name: "x" }],
  ["DELETE", "/admin/api/keys/key_none"],
  ["GET", "/admin/api/usage"],
  ["GET", "/admin/api/requests"],
  ["GET", "/admin/api/channels"],
  ["POST", "/admin/api/channels/echo/test"],
];

Deno.test("admin API: 401 without a key, 403 for a key that is not admin (but /me), 400 naming the field", async () => {
  await withScope(async (s) => {
    const { gateway, admin } = await adminGateway(s);
    const user = await gateway.createKey({ account: "user" });
    for (const [method, path, body] of [...ROUTES, ["GET", "/admin/api/me"] as [string, string]]) {
      const missing = await assertOpenAiError(
        await adminFetch(gateway, path, { method, body }),
        401,
        "invalid_request",
      );
      assert.match(missing.error.message, /Missing API key/);
      await assertOpenAiError(
        await adminFetch(gateway, path, { method, body, key: "sk-unknown" }),
        401,
        "authentication_error",
      );
    }
    for (const [method, path, body] of ROUTES) {
      const refused = await assertOpenAiError(
        await adminFetch(gateway, path, { method, body, key: user.secret }),
        403,
        "access_denied",
      );
      assert.match(refused.error.message, /not an admin key/, `${method} ${path}`);
    }
    const me = await adminFetch(gateway, "/admin/api/me", {
      headers: { "x-api-key": user.secret },
    });
    assert.equal(me.status, 200, "any key reads its own; x-api-key works as Bearer does");
    assert.equal((await me.json()).key.id, user.id);

    const bad: [string, string, unknown, string][] = [
      ["GET", "/admin/api/usage?since=yesterday", undefined, "since"],
      ["GET", "/admin/api/usage?bucket=week", undefined, "bucket"],
      ["GET", "/admin/api/usage?bucket=constructor", undefined, "bucket"],
      ["GET", "/admin/api/me?bucket=constructor", undefined, "bucket"],
      ["GET", "/admin/api/requests?limit=0", undefined, "limit"],
      ["GET", "/admin/api/requests?limit=ten", undefined, "limit"],
      ["GET", "/admin/api/requests?status=lost", undefined, "status"],
      ["POST", "/admin/api/keys", { account: "admin", quota_tokens: "many" }, "quota_tokens"],
      ["POST", "/admin/api/keys", { account: "admin", quota: 5 }, "quota"],
      ["POST", "/admin/api/keys", { account: "admin", allow_ips: ["10.0.0.300"] }, "allow_ips"],
      ["POST", "/admin/api/keys", { account: "admin", group: "nope" }, "group"],
      ["POST", "/admin/api/keys", {}, "account"],
      ["PATCH", "/admin/api/accounts/admin", { enabled: "yes" }, "enabled"],
      ["POST", "/admin/api/accounts/admin/topup", { usd: -1 }, "usd"],
      ["POST", "/admin/api/accounts", { name: "x", balance_usd: "1.0000001" }, "balance_usd"],
    ];
    for (const [method, path, body, param] of bad) {
      const refused = await assertOpenAiError(
        await adminFetch(gateway, path, { method, body, key: admin }),
        400,
        "invalid_request",
      );
      assert.equal(refused.error.param, param, `${method} ${path}: ${refused.error.message}`);
    }
    const notJson = await fetch(`${gateway.url}/admin/api/accounts`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin}` },
      body: "{name",
    });
    await assertOpenAiError(notJson, 400, "bad_request_body");
    await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/nothing", { key: admin }),
      404,
      "not_found",
    );
    const wrongMethod = await adminFetch(gateway, "/admin/api/usage", {
      key: admin,
      method: "DELETE",
    });
    assert.equal(wrongMethod.headers.get("allow"), "GET, HEAD");
    await assertOpenAiError(wrongMethod, 405, "method_not_allowed");
  });
});

Deno.test("admin API: [server] dashboard = false turns /admin off, and a reload turns it back on", async () => {
  await withScope(async (s) => {
    const { gateway, admin } = await adminGateway(s);
    const config = await Deno.readTextFile(gateway.configPath);
    const body = config.slice(config.indexOf("[groups"));
    await replaceConfig(gateway, `[server]\ndashboard = false\n${body}`);
    await gateway.server.reload();
    for (const path of ["/admin/api/me", "/admin", "/admin/sign-in"]) {
      const off = await assertOpenAiError(
        await adminFetch(gateway, path, { key: admin }),
        404,
        "not_found",
      );
      assert.match(off.error.message, /dashboard = false/);
    }
    const models = await fetch(`${gateway.baseUrl}/models`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    assert.equal(models.status, 200, await models.text());
    await replaceConfig(gateway, body);
    await gateway.server.reload();
    assert.equal((await adminFetch(gateway, "/admin/api/me", { key: admin })).status, 200);
  });
});

Deno.test("admin API: channel health over the last hour and day, failing then up again; a test request that bills nothing", async () => {
  await withScope(async (s) => {
    const fake = await s.fake({ name: "flaky", models: ["flaky"] });
    const gateway = await s.gateway(configWith(
      channel({ name: "flaky", protocol: "chat", baseUrl: fake.url, models: ["flaky"] }) +
        channel({
          name: "down",
          protocol: "chat",
          baseUrl: `http://127.0.0.1:${closedPort()}/v1`,
          models: ["down"],
          keys: ["sk-up"],
        }),
      "[failover]\nretries = 0\n",
    ));
    const admin = gateway.server.firstKey!;
    const user = await gateway.createKey({ account: "user", balanceUsd: "1" });
    const channels = async () =>
      new Map(
        (await adminJson<ChannelJson[]>(gateway, "/admin/api/channels", { key: admin }))
          .map((channel) => [channel.name, channel]),
      );
    const ask = async (model: string) => {
      const response = await gateway.post("/v1/chat/completions", user.secret, chatBody(model));
      await response.text();
      await gateway.server.settled();
      return response.status;
    };

    assert.equal(await ask("flaky"), 200);
    fake.setBehaviour({ error: { status: 500, times: 1 } });
    assert.equal(await ask("flaky"), 502);
    let flaky = (await channels()).get("flaky")!;
    assert.equal(flaky.state, "failing");
    assert.deepEqual(
      [flaky.requests_1h, flaky.ok_1h, flaky.errors_1h, flaky.requests_24h, flaky.errors_24h],
      [2, 1, 1, 2, 1],
    );
    assert.equal(flaky.last_error_status, 500);
    assert.equal(typeof flaky.p50_ttfb_ms_1h, "number");
    // Served again: up.
    assert.equal(await ask("flaky"), 200);
    flaky = (await channels()).get("flaky")!;
    assert.deepEqual([flaky.state, flaky.requests_1h, flaky.errors_1h], ["up", 3, 1]);

    // Test now: one small request in the channel's protocol, its answer shown, nothing billed.
    const ledger = (await gateway.ledger()).length;
    const before = await cliJson(gateway, "account", "list");
    const fakeRequests = fake.requests.length;
    const check = await adminJson<ChannelCheckJson>(
      gateway,
      "/admin/api/channels/flaky/test",
      { key: admin, method: "POST" },
    );
    assert.deepEqual(
      [check.ok, check.status, check.model, check.key, check.error],
      [true, 200, "flaky", null, null],
    );
    assert.match(check.answer ?? "", /Reply with the word ok/, "the fake echoes the prompt");
    assert.ok(check.duration_ms >= (check.ttfb_ms ?? 0));
    assert.equal(fake.requests.length, fakeRequests + 1);
    const sent = fake.requests.at(-1)!;
    assert.equal(sent.path, "/v1/chat/completions");
    assert.equal((sent.body as { max_tokens: number }).max_tokens, 16);
    await gateway.server.settled();
    assert.equal((await gateway.ledger()).length, ledger, "no ledger row");
    assert.deepEqual(await cliJson(gateway, "account", "list"), before, "no balance touched");
    assert.equal((await channels()).get("flaky")!.requests_1h, 3, "not counted as traffic");

    const down = await adminJson<ChannelCheckJson>(gateway, "/admin/api/channels/down/test", {
      key: admin,
      body: { model: "down" },
    });
    assert.deepEqual([down.ok, down.status, down.answer], [false, null, null]);
    assert.match(down.error ?? "", /could not be reached/);
    fake.setBehaviour({ error: { status: 401, message: "Incorrect API key provided." } });
    const refused = await adminJson<ChannelCheckJson>(gateway, "/admin/api/channels/flaky/test", {
      key: admin,
      method: "POST",
    });
    assert.deepEqual([refused.ok, refused.status], [false, 401]);
    assert.match(refused.error ?? "", /HTTP 401\. Incorrect API key provided\./);

    await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/channels/nowhere/test", { key: admin, method: "POST" }),
      404,
      "not_found",
    );
    const wrongModel = await assertOpenAiError(
      await adminFetch(gateway, "/admin/api/channels/flaky/test", {
        key: admin,
        body: { model: "down" },
      }),
      400,
      "invalid_request",
    );
    assert.equal(wrongModel.error.param, "model");
    const get = await adminFetch(gateway, "/admin/api/channels/flaky/test", { key: admin });
    await get.body?.cancel();
    assert.deepEqual([get.status, get.headers.get("allow")], [405, "POST"]);
  });
});

Deno.test("admin API: a key made or changed with a model the config does not know answers warnings", async () => {
  await withScope(async (s) => {
    const { gateway, admin } = await adminGateway(s);
    const created = await adminJson<CreatedKeyJson>(gateway, "/admin/api/keys", {
      key: admin,
      body: { account: "admin", models: ["echo", "cachd"] },
    }, 201);
    assert.deepEqual(created.warnings, [
      'Model "cachd" is unknown: no channel in "' + gateway.configPath +
      '" serves it and no alias names it, so the key cannot use it; did you mean "cached"?',
    ]);
    const updated = await adminJson<UpdatedKeyJson>(gateway, `/admin/api/keys/${created.id}`, {
      key: admin,
      method: "PATCH",
      body: { models: ["echo"] },
    });
    assert.deepEqual([updated.models, updated.warnings], [["echo"], []]);
  });
});
