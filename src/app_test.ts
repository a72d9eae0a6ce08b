import assert from "node:assert/strict";
import { type App, createApp } from "./app.ts";
import { hashKeySecret } from "./auth/keys.ts";
import { testPrincipal } from "./auth/test_support.ts";
import type { Accounting } from "./billing/accounting.ts";
import { parseConfig } from "./config/schema.ts";
import { createConfigStore } from "./config/store.ts";
import { silentLogger } from "./log.ts";
import { createObserver } from "./observability/observer.ts";
import { createHttpClient } from "./upstream/http1/client.ts";

const SECRET = "sk-test-app-request";

/**
 * The app over an in-memory key and config, asked with `app.request()` (no socket): the
 * request log's lines are kept. Nothing here relays, so accounting is never asked.
 */
async function withApp(test: (app: App, log: string[]) => Promise<void>): Promise<void> {
  const config = parseConfig({
    groups: { default: { models: ["*"] } },
    channels: [{ name: "echo", protocol: "echo", models: ["echo"] }],
    server: { log_format: "json" },
  });
  const keys = new Map([[hashKeySecret(SECRET), testPrincipal()]]);
  const log: string[] = [];
  const upstream = createHttpClient();
  const unused: Accounting = {
    hold: () => Promise.reject(new Error("no request of these tests is relayed")),
    drain: () => Promise.resolve(),
  };
  try {
    await test(
      createApp({
        config: createConfigStore(config),
        lookupKey: (hash) => Promise.resolve(keys.get(hash)),
        accounting: unused,
        log: silentLogger,
        upstream,
        observer: createObserver({
          writer: { line: (text) => void log.push(text), flush: () => Promise.resolve() },
        }),
      }),
      log,
    );
  } finally {
    upstream.close();
  }
}

Deno.test("app: GET /v1/models answers the key's models, with its request id, and logs it once", () =>
  withApp(async (app, log) => {
    const response = await app.request("/v1/models", {
      headers: { authorization: `Bearer ${SECRET}`, "x-request-id": "trace-1" },
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("x-request-id"), "trace-1");
    const body = await response.json();
    assert.deepEqual(body.data.map((model: { id: string }) => model.id), ["echo"]);
    assert.equal(log.length, 1);
    assert.equal(JSON.parse(log[0]!).status, 200);
  }));

Deno.test("app: errors are rendered once, in the path's shape, and logged as refused", () =>
  withApp(async (app, log) => {
    const unknown = await app.request("/v1/models", { headers: { "x-api-key": "sk-nope" } });
    assert.equal(unknown.status, 401);
    assert.equal((await unknown.json()).error.code, "authentication_error");
    const missing = await app.request("/v1/messages", { method: "POST", body: "{}" });
    assert.equal(missing.status, 401);
    const messages = await missing.json();
    assert.equal(messages.type, "error", "the messages shape under /v1/messages");
    assert.equal(messages.error.type, "authentication_error");
    assert.deepEqual(log.map((line) => JSON.parse(line).outcome), ["refused", "refused"]);
  }));

Deno.test("app: an unknown path is 404 naming the mistake; a known one with another method 405", () =>
  withApp(async (app) => {
    const doubled = await app.request("/v1/v1/chat/completions", { method: "POST" });
    assert.equal(doubled.status, 404);
    assert.match((await doubled.json()).error.message, /repeats "\/v1"/);
    const wrongMethod = await app.request("/v1/responses/resp_1", { method: "POST" });
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get("allow"), "GET, HEAD, DELETE");
    const head = await app.request("/healthz", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
  }));
