/**
 * tollgate's dashboard in a real browser: Debian's Chromium driven by playwright-core (which
 * downloads nothing) against a real `tollgate serve` on 127.0.0.1 with the echo channel and a
 * channel whose upstream is down. Signs in with the first-run admin key, reads the overview's
 * totals against `tollgate usage --json`, creates a key in the form and uses it, sees the
 * failing channel, checks that a key that is not admin sees only its own page, that nothing
 * overflows a phone's width, that no page logs an error and that no request leaves 127.0.0.1.
 *
 * Run: `npm ci && node --test dashboard_browser.mjs` here (`.ci/run` does). TOLLGATE_DENO
 * names the deno command (default `deno`).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  launchChromium,
  serve,
  signIn as signInWith,
  tollgate as tollgateWith,
  writeConfig,
} from "./tollgate.mjs";

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let dir;
let configPath;
/** The running `tollgate serve`, its URL and its first-run admin key. */
let server;
let url;
let adminKey;
let browser;
/** A key made in the form (step 2), used again by step 4. */
let madeKey;
/** What every page logged as an error, and every request that was not to 127.0.0.1. */
const consoleErrors = [];
const outsideRequests = [];

/** A port on 127.0.0.1 nothing listens on. */
async function closedPort() {
  const listener = createServer();
  await new Promise((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address();
  await new Promise((resolve) => listener.close(resolve));
  return port;
}

/** Runs `tollgate ARGS --config <ours>`; its stdout. */
const tollgate = (...args) => tollgateWith(configPath, ...args);

/** Signs in on a new page of `context` with `key`. */
const signIn = (context, key) => signInWith(context, url, key);

/** A chat request through the gateway; its status. */
async function chat(key, model, stream = false) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({
      model,
      stream,
      messages: [{ role: "user", content: "hello there" }],
    }),
  });
  await response.text();
  return response.status;
}

/** A browser context whose pages are watched for errors and requests leaving 127.0.0.1. */
async function watchedContext(viewport) {
  const context = await browser.newContext({ viewport });
  await context.route("**/*", (route) => {
    const target = new URL(route.request().url());
    if (target.hostname === "127.0.0.1") return route.continue();
    outsideRequests.push(target.href);
    return route.abort();
  });
  context.on("page", (page) => watch(page));
  return context;
}

function watch(page) {
  page.on("console", (message) => {
    if (message.type() === "error") {
      consoleErrors.push(`${page.url()}: ${message.text()}`);
    }
  });
  page.on(
    "pageerror",
    (error) => consoleErrors.push(`${page.url()}: ${error.message}`),
  );
}

/** A figure as the page writes it ("1,234", "$0.0042", "5 (25.0%)") as a number. */
function numberOf(text) {
  return Number(text.replace(/[$,]/g, "").split(" ")[0]);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "tollgate_browser_"));
  configPath = await writeConfig(dir, [
    "[groups.default]",
    'models = ["*"]',
    "[models.echo]",
    "input_price = 1.25",
    "output_price = 3.5",
    "[[channels]]",
    'name = "echo"',
    'protocol = "echo"',
    'models = ["echo"]',
    "[[channels]]",
    'name = "down"',
    'protocol = "chat"',
    `base_url = "http://127.0.0.1:${await closedPort()}/v1"`,
    'keys = ["sk-upstream"]',
    'models = ["down"]',
  ]);
  server = await serve(configPath, { firstRun: true });
  url = server.url;
  adminKey = server.key;
  for (const stream of [false, true, false]) {
    assert.equal(await chat(adminKey, "echo", stream), 200);
  }
  assert.equal(await chat(adminKey, "down"), 502);
  // Answers go out before their ledger rows: wait until all four are in.
  for (let tries = 0;; tries++) {
    const response = await fetch(`${url}/admin/api/usage`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    if ((await response.json()).totals.requests === 4) break;
    assert.ok(tries < 100, "the four requests settle");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("signs in with the first-run admin key; the overview's totals are usage --json's", async () => {
  const context = await watchedContext(DESKTOP);
  const page = await signIn(context, adminKey);
  await assert.doesNotReject(
    page.getByRole("heading", { name: "Overview" }).waitFor(),
  );
  const range = page.locator("[data-since]");
  const since = await range.getAttribute("data-since");
  const until = await range.getAttribute("data-until");
  const cli = JSON.parse(
    await tollgate("usage", "--json", "--since", since, "--until", until),
  );
  const figure = async (name) =>
    numberOf(await page.locator(`[data-figure="${name}"] dd`).innerText());
  assert.equal(cli.totals.requests, 4);
  for (
    const name of [
      "requests",
      "input_tokens",
      "output_tokens",
      "cached_tokens",
      "errors",
    ]
  ) {
    assert.equal(await figure(name), cli.totals[name], name);
  }
  const spend = await figure("cost_usd");
  assert.ok(spend > 0);
  assert.equal(
    Math.round(spend * 1e6),
    Math.round(cli.totals.cost_usd * 1e6),
    "to the micro-USD",
  );
  assert.ok(
    await page.locator("svg.chart rect").count() > 0,
    "the chart has bars",
  );
  await context.close();
});

test("creates a key in the form; its secret, shown once, works through the gateway", async () => {
  const context = await watchedContext(DESKTOP);
  const page = await signIn(context, adminKey);
  await page.getByRole("link", { name: "Keys" }).click();
  const form = page.getByRole("form", { name: "Create a key" });
  if (!(await form.isVisible())) await page.getByText("Create a key").click();
  await form.getByLabel("Name").fill("browser key");
  await form.getByLabel("Token quota").fill("100000");
  await form.getByRole("button", { name: "Create key" }).click();
  madeKey = (await page.locator("#new-secret").innerText()).trim();
  assert.match(madeKey, /^sk-[0-9A-Za-z]{40,}$/);
  assert.equal(await chat(madeKey, "echo"), 200, "the new key works at once");
  await page.goto(`${url}/admin/keys`);
  assert.ok(
    !(await page.content()).includes(madeKey),
    "the secret is shown only once",
  );
  await context.close();
});

test("the channels page shows the channel whose upstream is down", async () => {
  const context = await watchedContext(DESKTOP);
  const page = await signIn(context, adminKey);
  await page.getByRole("link", { name: "Channels" }).click();
  const down = page.locator('tr[data-channel="down"]');
  assert.ok(numberOf(await down.locator("[data-errors]").innerText()) >= 1);
  assert.match(
    await down.locator("[data-last-error]").innerText(),
    /could not be reached/,
  );
  const echo = page.locator('tr[data-channel="echo"]');
  assert.equal(await echo.locator("[data-state]").innerText(), "up");
  await context.close();
});

test("a key that is not admin sees only its own key, quota, balance and usage", async () => {
  const context = await watchedContext(DESKTOP);
  const page = await signIn(context, madeKey);
  assert.equal(
    await page.getByRole("heading", { level: 1 }).innerText(),
    "browser key",
  );
  assert.match(
    await page.locator("main").innerText(),
    /of 100,000 tokens used/,
  );
  assert.equal(await page.getByRole("link", { name: "Keys" }).count(), 0);
  assert.equal(
    numberOf(await page.locator('[data-figure="requests"] dd').innerText()),
    1,
  );
  const html = await page.content();
  const adminId = JSON.parse(await tollgate("key", "list", "--json"))
    .find((key) => key.name === "first key").id;
  assert.ok(!html.includes(adminId), "no other key on the page");
  // Asked without navigating: a 403 page is logged by the browser as a failed load.
  const keysPage = await context.request.get(`${url}/admin/keys`);
  assert.equal(keysPage.status(), 403);
  assert.match(await keysPage.text(), /needs an admin key/);
  await context.close();
});

test("every page fits a phone's width (390 px): no horizontal overflow", async () => {
  const context = await watchedContext(PHONE);
  const page = await signIn(context, adminKey);
  for (const path of ["", "/keys", "/accounts", "/channels", "/requests"]) {
    await page.goto(`${url}/admin${path}`);
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth -
      document.documentElement.clientWidth
    );
    assert.equal(overflow, 0, `/admin${path} overflows by ${overflow} px`);
  }
  await context.close();
});

test("no page logged an error and no request left 127.0.0.1", () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(outsideRequests, []);
});
