/**
 * Operating tollgate: /metrics (parsed by a Prometheus text-format parser), the
 * Server-Timing header, the request log, `tollgate requests`, /healthz and /readyz.
 */
import assert from "node:assert/strict";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { runCli } from "../src/cli/main.ts";
import { chatBody as pricedChatBody, PRICED_MODEL, waitUntil } from "./accounting_support.ts";
import { channel, configWith, type TestGateway } from "./harness.ts";
import {
  chatBody,
  gatewayWithKey,
  messagesBody,
  readEvents,
  replaceConfig,
  withScope,
} from "./support.ts";

const ECHO = channel({ name: "echo", protocol: "echo", models: ["echo"] });

interface Sample {
  value?: string;
  labels?: Record<string, string>;
  buckets?: Record<string, string>;
}

/** The parsed exposition, as name -> samples. */
async function scrape(gateway: TestGateway, token?: string): Promise<Map<string, Sample[]>> {
  const response = await fetch(`${gateway.url}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const families = parsePrometheusTextFormat(text) as { name: string; metrics: Sample[] }[];
  return new Map(families.map((family) => [family.name, family.metrics]));
}

/** The value of the sample whose labels include `labels` (0 when there is none). */
function valueOf(
  metrics: Map<string, Sample[]>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const sample = (metrics.get(name) ?? []).find((candidate) =>
    Object.entries(labels).every(([key, value]) => candidate.labels?.[key] === value)
  );
  return Number(sample?.value ?? 0);
}

Deno.test("metrics: a failed upstream attempt counts by channel and kind, and failover serves the request", () =>
  withScope(async (s) => {
    // A port nothing listens on: the attempt fails to connect.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const closedPort = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const down = channel({
      name: "down",
      protocol: "chat",
      baseUrl: `http://127.0.0.1:${closedPort}/v1`,
      models: ["echo"],
      keys: ["sk-upstream"],
      priority: 10,
    });
    const { gateway, secret } = await gatewayWithKey(s, down + ECHO);
    const before = await scrape(gateway);
    assert.equal(valueOf(before, "tollgate_upstream_failures_total", { channel: "down" }), 0);
    const response = await gateway.post("/v1/chat/completions", secret, chatBody("echo"));
    assert.equal(response.status, 200, await response.text());
    const after = await scrape(gateway);
    assert.equal(
      valueOf(after, "tollgate_upstream_failures_total", { channel: "down", kind: "network" }),
      1,
    );
    assert.equal(valueOf(after, "tollgate_requests_total", { channel: "echo", status: "200" }), 1);
  }));

Deno.test("metrics: counters grow by exactly the requests sent, tokens follow the ledger", () =>
  withScope(async (s) => {
    const { gateway, secret } = await gatewayWithKey(s, ECHO);
    for (let i = 0; i < 3; i++) {
      const response = await gateway.post("/v1/chat/completions", secret, chatBody("echo"));
      assert.equal(response.status, 200, await response.text());
    }
    for (let i = 0; i < 2; i++) {
      const response = await gateway.post(
        "/v1/messages",
        secret,
        messagesBody("echo", "one two three", { stream: true }),
      );
      await readEvents(response);
    }
    const refused = await gateway.post("/v1/chat/completions", "sk-wrong", chatBody("echo"));
    assert.equal(refused.status, 401);
    await refused.body?.cancel();

    const metrics = await scrape(gateway);
    const requests = (labels: Record<string, string>) =>
      valueOf(metrics, "tollgate_requests_total", labels);
    assert.equal(requests({ entry_point: "chat", model: "echo", status: "200" }), 3);
    assert.equal(requests({ entry_point: "messages", model: "echo", status: "200" }), 2);
    assert.equal(requests({ status: "401" }), 1);
    const rows = await gateway.ledger();
    const sum = (column: "input_tokens" | "output_tokens") =>
      rows.reduce((total, row) => total + row[column], 0);
    assert.equal(valueOf(metrics, "tollgate_tokens_total", { kind: "input" }), sum("input_tokens"));
    assert.equal(
      valueOf(metrics, "tollgate_tokens_total", { kind: "output" }),
      sum("output_tokens"),
    );
    assert.equal(valueOf(metrics, "tollgate_active_streams"), 0);
    assert.equal(valueOf(metrics, "tollgate_holds_in_flight"), 0);
    assert.equal(valueOf(metrics, "tollgate_channel_up", { channel: "echo" }), 1);
    // The parser keeps one label set per histogram: read the counts off the text.
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    const counted = [...text.matchAll(/^tollgate_request_duration_seconds_count\{[^}]*\} (\d+)$/gm)]
      .reduce((total, match) => total + Number(match[1]), 0);
    assert.equal(counted, 5, "every relayed request is in the latency histogram");
    // A reload counts; an invalid file counts as failed.
    await replaceConfig(gateway, configWith(ECHO, "# changed"));
    await gateway.server.reload();
    await replaceConfig(gateway, "this is not toml [");
    await gateway.server.reload();
    const after = await scrape(gateway);
    assert.equal(valueOf(after, "tollgate_config_reloads_total", { result: "ok" }), 1);
    assert.equal(valueOf(after, "tollgate_config_reloads_total", { result: "failed" }), 1);
  }));

Deno.test("metrics: an open priced stream shows as an active stream and a hold; cost follows the ledger", () =>
  withScope(async (s) => {
    const fake = await s.fake({ name: "up" });
    const gateway = await s.gateway(
      configWith(
        channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["priced"] }),
        PRICED_MODEL,
      ),
    );
    const { secret } = await gateway.createKey({ balanceUsd: "1" });
    const gate = Promise.withResolvers<void>();
    // The upstream sends the role chunk and one word, then waits.
    fake.setBehaviour({ gate: gate.promise, gateAfter: 2 });
    const response = await gateway.post(
      "/v1/chat/completions",
      secret,
      pricedChatBody("alpha beta gamma", { stream: true }),
    );
    const reader = response.body!.getReader();
    assert.equal((await reader.read()).done, false);
    const during = await scrape(gateway);
    assert.equal(valueOf(during, "tollgate_active_streams"), 1);
    assert.equal(valueOf(during, "tollgate_holds_in_flight"), 1);
    gate.resolve();
    while (!(await reader.read()).done) { /* the rest of the stream */ }
    await waitUntil(async () => (await gateway.ledger()).length === 1, "the stream's ledger row");
    const rows = await gateway.ledger();
    const after = await scrape(gateway);
    assert.equal(valueOf(after, "tollgate_active_streams"), 0);
    assert.equal(valueOf(after, "tollgate_holds_in_flight"), 0);
    assert.ok(rows[0]!.cost_micros > 0);
    assert.equal(
      valueOf(after, "tollgate_cost_usd_total", { model: "priced" }),
      rows[0]!.cost_micros / 1_000_000,
    );
    assert.equal(
      valueOf(after, "tollgate_tokens_total", { model: "priced", kind: "output" }),
      rows[0]!.output_tokens,
    );
  }));

Deno.test("metrics: a metrics_token guards /metrics; an API key does not open it; it can be off", () =>
  withScope(async (s) => {
    const { gateway, secret } = await gatewayWithKey(
      s,
      ECHO,
      `[server]\nmetrics_token = "scrape-me"\n`,
    );
    for (const authorization of [undefined, `Bearer ${secret}`, "Bearer wrong"]) {
      const response = await fetch(`${gateway.url}/metrics`, {
        headers: authorization ? { authorization } : {},
      });
      assert.equal(response.status, 401, String(authorization));
      await response.body?.cancel();
    }
    assert.ok((await scrape(gateway, "scrape-me")).has("tollgate_requests_total"));
    await replaceConfig(gateway, `[server]\nmetrics = false\n` + configWith(ECHO));
    await gateway.server.reload();
    const off = await fetch(`${gateway.url}/metrics`);
    assert.equal(off.status, 404);
    await off.body?.cancel();
  }));

Deno.test("server-timing: relayed answers say the gateway's and the upstream's time", () =>
  withScope(async (s) => {
    const fake = await s.fake();
    const { gateway, secret } = await gatewayWithKey(
      s,
      channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["m"] }),
    );
    // How the two figures are made is server_timing_test.ts's; here, that both answers carry them.
    for (const stream of [false, true]) {
      const response = await gateway.post(
        "/v1/chat/completions",
        secret,
        chatBody("m", "hi", { stream }),
      );
      const header = response.headers.get("server-timing") ?? "";
      await response.text();
      assert.match(
        header,
        /^gateway;dur=\d+\.\d;desc="tollgate", upstream;dur=\d+\.\d;desc="upstream"$/,
        `stream: ${stream}`,
      );
    }
  }));

Deno.test("request log: one line per request, with the key id and never the secret", () =>
  withScope(async (s) => {
    const { gateway, id, secret } = await gatewayWithKey(
      s,
      ECHO,
      `[server]\nlog_format = "json"\n`,
    );
    const before = Date.now();
    const ok = await gateway.post("/v1/chat/completions", secret, chatBody("echo"));
    const okId = ok.headers.get("x-request-id");
    await ok.text();
    const after = Date.now();
    const stream = await gateway.post(
      "/v1/messages",
      secret,
      messagesBody("echo", "a b c", { stream: true }),
    );
    await readEvents(stream);
    const denied = await gateway.post("/v1/chat/completions", secret, chatBody("nope"));
    await denied.text();
    assert.equal(gateway.requestLog.length, 3);
    assert.ok(gateway.requestLog.every((line) => !line.includes(secret)), "no secret is logged");
    const [first, second, third] = gateway.requestLog.map((line) => JSON.parse(line));
    assert.equal(first.request_id, okId);
    // When the request came, to the millisecond, in UTC.
    assert.match(first.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(before <= Date.parse(first.time) && Date.parse(first.time) <= after, first.time);
    assert.equal(first.key_id, id);
    assert.equal(first.entry_point, "chat");
    assert.equal(first.model, "echo");
    assert.equal(first.channel, "echo");
    assert.equal(first.status, 200);
    assert.equal(first.outcome, "ok");
    assert.equal(first.attempts, 1);
    assert.ok(first.input_tokens > 0 && first.output_tokens > 0);
    assert.equal(typeof first.latency_ms, "number");
    assert.equal(typeof first.ttfb_ms, "number");
    assert.equal(second.entry_point, "messages");
    assert.equal(second.outcome, "ok");
    assert.ok(second.output_tokens > 0, "a stream is logged when it ends, with its usage");
    assert.equal(third.status, 503);
    assert.equal(third.outcome, "refused");
  }));

Deno.test("requests: `tollgate requests --id` finds the request a client saw", () =>
  withScope(async (s) => {
    const { gateway, secret, account } = await gatewayWithKey(s, ECHO);
    const response = await gateway.post("/v1/chat/completions", secret, chatBody("echo"));
    const requestId = response.headers.get("x-request-id")!;
    await response.text();
    // The ledger row is written after the answer went out.
    await waitUntil(async () => (await gateway.ledger()).length === 1, "the request's ledger row");
    const run = async (args: string[]) => {
      const out: string[] = [];
      const code = await runCli([...args, "--config", gateway.configPath], {
        stdout: (text) => out.push(text),
        stderr: (text) => out.push(text),
      }, { env: () => undefined });
      return { code, out: out.join("\n") };
    };
    const found = await run(["requests", "--id", requestId, "--json"]);
    assert.equal(found.code, 0, found.out);
    const [row] = JSON.parse(found.out);
    assert.equal(row.request_id, requestId);
    assert.equal(row.account, account);
    assert.equal(row.status, "ok");
    assert.equal(row.model, "echo");
    const text = await run(["requests", "--id", requestId]);
    assert.match(text.out, new RegExp(`request_id\\s+${requestId}`));
    const missing = await run(["requests", "--id", "req_nope"]);
    assert.equal(missing.code, 1);
    const bad = await run(["requests", "--status", "weird"]);
    assert.equal(bad.code, 2);
  }));

Deno.test("health: /healthz is alive, /readyz says ready until no channel is usable", () =>
  withScope(async (s) => {
    const fake = await s.fake({ behaviour: { error: { status: 401 } } });
    const gateway = await s.gateway(
      configWith(
        channel({ name: "up", protocol: "chat", baseUrl: fake.url, models: ["m"], keys: ["k"] }),
      ),
    );
    const { secret } = await gateway.createKey();
    const alive = await fetch(`${gateway.url}/healthz`);
    assert.deepEqual(await alive.json(), { status: "ok" });
    const ready = await fetch(`${gateway.url}/readyz`);
    const body = await ready.json();
    assert.equal(ready.status, 200, JSON.stringify(body));
    assert.equal(body.database, "ok");
    assert.deepEqual(body.channels, { usable: 1, total: 1 });
    assert.match(body.config.hash, /^[0-9a-f]{16}$/);
    // The upstream rejects the channel's only key: nothing left to serve with.
    const rejected = await gateway.post("/v1/chat/completions", secret, chatBody("m"));
    await rejected.text();
    const notReady = await fetch(`${gateway.url}/readyz`);
    assert.equal(notReady.status, 503);
    assert.deepEqual((await notReady.json()).channels, { usable: 0, total: 1 });
  }));
