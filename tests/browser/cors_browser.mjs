/**
 * CORS from a real browser: a page of an origin in `[server] cors_origins` calls the API
 * with a key (its preflight answered, the SDKs' own headers allowed) and reads the answer
 * and its `x-request-id`; a page of another origin is refused by the browser.
 *
 * Run: `npm ci && node --test cors_browser.mjs` here (`.ci/run` does).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ECHO_CONFIG, launchChromium, serve, writeConfig } from "./tollgate.mjs";

let dir;
let server;
let browser;
/** Two web apps on 127.0.0.1: one allowed, one not. */
let allowed;
let other;

/** A page server on 127.0.0.1 (its own origin), answering every path with an empty page. */
async function pageServer() {
  const http = createServer((_, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end("<!doctype html><title>app</title>");
  });
  await new Promise((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${http.address().port}`,
    close: () => new Promise((resolve) => http.close(resolve)),
  };
}

before(async () => {
  allowed = await pageServer();
  other = await pageServer();
  dir = await mkdtemp(join(tmpdir(), "tollgate_cors_"));
  const configPath = await writeConfig(dir, ECHO_CONFIG, [
    `cors_origins = ["${allowed.origin}"]`,
  ]);
  server = await serve(configPath, { firstRun: true });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await allowed?.close();
  await other?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Calls the gateway from a page of `origin` as the OpenAI SDK would; what the page saw. */
async function callFrom(origin) {
  const page = await browser.newPage();
  try {
    await page.goto(`${origin}/`);
    return await page.evaluate(async ({ url, key }) => {
      try {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "x-stainless-os": "Linux",
            "x-stainless-retry-count": "0",
          },
          body: JSON.stringify({
            model: "echo",
            messages: [{ role: "user", content: "from a browser" }],
          }),
        });
        const body = await response.json();
        return {
          status: response.status,
          text: body.choices?.[0]?.message?.content,
          requestId: response.headers.get("x-request-id"),
        };
      } catch (error) {
        return { error: String(error) };
      }
    }, { url: server.url, key: server.key });
  } finally {
    await page.close();
  }
}

test("a page of an allowed origin calls the API and reads the answer", async () => {
  const seen = await callFrom(allowed.origin);
  assert.equal(seen.status, 200, JSON.stringify(seen));
  assert.equal(seen.text, "from a browser");
  assert.match(
    seen.requestId ?? "",
    /^req_/,
    "x-request-id is exposed to the page",
  );
});

test("a page of another origin is refused by the browser", async () => {
  const seen = await callFrom(other.origin);
  assert.match(seen.error ?? "", /Failed to fetch/, JSON.stringify(seen));
});
