/**
 * tollgate's dashboard in a real browser: Debian's Chromium driven by playwright-core (which
 * downloads nothing) against a real `tollgate serve` on 127.0.0.1 with the echo channel, a
 * channel whose upstream is down and one whose upstream (a tiny server here) fails when told.
 * Signs in with the first-run admin key, reads the overview's totals against `tollgate usage
 * --json` (money in cents, exact on hover), follows the links from the overview and the
 * requests page to a key's, an account's, a model's and a channel's pages, picks ranges in
 * the browser's time zone, creates a key in the form and uses it, sees a channel failing and
 * recovered and tests it from its page, checks that a key that is not admin sees only its own
 * page, that nothing overflows a phone's width and every table cell is inside it, that no
 * page logs an error and that no request leaves 127.0.0.1.
 *
 * Run: `npm ci && node --test dashboard_browser.mjs` here (`.ci/run` does). TOLLGATE_DENO
 * names the deno command (default `deno`).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer as createHttpServer } from "node:http";
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
/** The browser's time zone: the pages write times and cut days in it. */
const ZONE = "America/New_York";

let dir;
let configPath;
/** The running `tollgate serve`, its URL and its first-run admin key. */
let server;
let url;
let adminKey;
let browser;
/** A key made in the form (step 2), used again by step 4. */
let madeKey;
/** The upstream of channel "flaky": answers chat completions, or 500 while `failing`. */
let flaky;
let failing = false;
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

/** A chat-completions upstream that echoes the last message, or answers 500 while `failing`. */
async function startFlaky() {
  const server = createHttpServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => body += chunk);
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      if (failing) {
        response.statusCode = 500;
        response.end(
          JSON.stringify({ error: { message: "The flaky upstream is down." } }),
        );
        return;
      }
      const { model, messages } = JSON.parse(body);
      response.end(JSON.stringify({
        id: "chatcmpl-flaky",
        object: "chat.completion",
        created: 0,
        model,
        choices: [{
          index: 0,
          message: {
            role: "assistant",
            content: `flaky says: ${messages.at(-1).content}`,
          },
          finish_reason: "stop",
        }],
        usage: { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
      }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** A browser context whose pages are watched for errors and requests leaving 127.0.0.1. */
async function watchedContext(viewport) {
  const context = await browser.newContext({ viewport, timezoneId: ZONE });
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

/** Answers go out before their ledger rows: waits until `count` requests are in. */
async function settled(count) {
  for (let tries = 0;; tries++) {
    const response = await fetch(`${url}/admin/api/usage`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    if ((await response.json()).totals.requests === count) return;
    assert.ok(tries < 100, `the ${count} requests settle`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A figure as the page writes it ("1,234", "$0.0042", "5 (25.0%)") as a number. */
function numberOf(text) {
  return Number(text.replace(/[$,]/g, "").split(" ")[0]);
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "tollgate_browser_"));
  flaky = await startFlaky();
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
    "[[channels]]",
    'name = "flaky"',
    'protocol = "chat"',
    `base_url = "http://127.0.0.1:${flaky.address().port}/v1"`,
    'models = ["flaky"]',
    "[failover]",
    "retries = 0",
  ]);
  server = await serve(configPath, { firstRun: true });
  url = server.url;
  adminKey = server.key;
  for (const stream of [false, true, false]) {
    assert.equal(await chat(adminKey, "echo", stream), 200);
  }
  assert.equal(await chat(adminKey, "down"), 502);
  await settled(4);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.stop();
  await new Promise((resolve) => flaky ? flaky.close(resolve) : resolve());
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
  // Money reads in cents or the decimals a small amount needs, never $0.00; exact on hover.
  const spend = page.locator('[data-figure="cost_usd"] .usd');
  const shown = await spend.innerText();
  assert.match(shown, /^\$(\d[\d,]*\.\d\d|0\.0*[1-9]\d?)$/);
  assert.notEqual(shown, "$0.00");
  assert.equal(
    await spend.getAttribute("title"),
    `exactly $${cli.totals.cost_usd.toFixed(6).replace(/0{1,4}$/, "")}`,
    "to the micro-USD",
  );
  assert.ok(Math.abs(numberOf(shown) - cli.totals.cost_usd) < 0.01);
  // The chart's values are on its axis and in its table, not only on hover.
  assert.equal(await page.locator(".y-axis span").count(), 3);
  assert.match(
    await page.locator("details.figures summary").innerText(),
    /Each (hour|day)'s figures/,
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
  assert.ok(
    Number(await down.locator("[data-errors]").getAttribute("data-errors")) >=
      1,
  );
  assert.equal(await down.locator("[data-state]").innerText(), "failing");
  assert.match(
    await down.locator("[data-last-error]").innerText(),
    /could not be reached/,
  );
  const echo = page.locator('tr[data-channel="echo"]');
  assert.equal(await echo.locator("[data-state]").innerText(), "up");
  await context.close();
});

test("a failing channel is shown failing, tested from its page, and up once it served again", async () => {
  const context = await watchedContext(DESKTOP);
  const page = await signIn(context, adminKey);
  const requests = await (await fetch(`${url}/admin/api/usage`, {
    headers: { authorization: `Bearer ${adminKey}` },
  })).json();
  failing = true;
  assert.equal(await chat(adminKey, "flaky"), 502);
  await settled(requests.totals.requests + 1);
  await page.goto(`${url}/admin/channels`);
  const row = page.locator('tr[data-channel="flaky"]');
  assert.equal(await row.locator("[data-state]").innerText(), "failing");
  assert.match(
    await row.locator("[data-last-error]").innerText(),
    /The flaky upstream is down/,
  );

  // Its page; "Test now" while it fails shows the error, then once it is back the answer.
  await row.getByRole("link", { name: "flaky" }).click();
  await page.waitForURL(`${url}/admin/channels/flaky`);
  assert.match(
    await page.locator("[data-meaning]").innerText(),
    /latest attempt failed \(HTTP 500\)/,
  );
  await page.getByRole("button", { name: "Test flaky now" }).click();
  const failed = page.locator('[data-check="failed"]');
  await failed.waitFor();
  assert.match(await failed.innerText(), /HTTP 500/);
  failing = false;
  await page.getByRole("button", { name: "Test flaky now" }).click();
  const answered = page.locator('[data-check="ok"]');
  await answered.waitFor();
  assert.match(
    await answered.innerText(),
    /flaky says: Reply with the word ok\./,
  );
  // A test changes nothing: still failing until a request is served.
  await page.goto(`${url}/admin/channels`);
  assert.equal(await row.locator("[data-state]").innerText(), "failing");
  assert.equal(await chat(adminKey, "flaky"), 200);
  await settled(requests.totals.requests + 2);
  await page.reload();
  assert.equal(await row.locator("[data-state]").innerText(), "up");
  await context.close();
});

test("names and ids lead to their pages; ranges are cut in the browser's time zone", async () => {
  const context = await watchedContext(DESKTOP);
  const page = await signIn(context, adminKey);
  // The overview's key, account and model lead to their pages.
  await page.locator('table[aria-label="Usage by key over the range"] a')
    .first().click();
  await page.waitForURL(/\/admin\/keys\/key_/);
  assert.match(
    await page.getByRole("heading", { level: 1 }).innerText(),
    /^first key/,
  );
  assert.match(
    await page.locator('[data-figure="requests"] dd').innerText(),
    /^\d+$/,
  );
  await page.locator('[data-key] a[href="/admin/accounts/admin"]').click();
  await page.waitForURL(`${url}/admin/accounts/admin`);
  assert.match(
    await page.getByRole("heading", { level: 1 }).innerText(),
    /^admin/,
  );
  await page.goto(`${url}/admin`);
  await page.locator('table[aria-label="Usage by model over the range"] a', {
    hasText: "echo",
  })
    .click();
  await page.waitForURL(`${url}/admin/models/echo`);
  assert.match(
    await page.locator("main").innerText(),
    /\$1\.25 per million tokens/,
  );
  // From the requests page, to a channel's page.
  await page.goto(`${url}/admin/requests`);
  await page.locator('tr[data-request] td[data-label="Channel"] a', {
    hasText: "echo",
  }).first()
    .click();
  await page.waitForURL(`${url}/admin/channels/echo`);
  // A request id links to its own page.
  await page.goto(`${url}/admin/requests`);
  const id = await page.locator("tr[data-request]").first().getAttribute(
    "data-request",
  );
  assert.equal(
    await page.locator(
      `tr[data-request="${id}"] a[href="/admin/requests/${id}"]`,
    ).count(),
    1,
  );

  // Today, in the browser's zone: from its midnight, and the page names the zone.
  await page.goto(`${url}/admin`);
  await page.getByRole("link", { name: "Today" }).click();
  await page.waitForURL(`${url}/admin?range=today`);
  const range = page.locator("[data-since]");
  assert.match(
    await range.innerText(),
    /^Today: .* times in America\/New_York \(UTC−0[45]:00\)$/,
  );
  const since = new Date(await range.getAttribute("data-since"));
  const local = since.toLocaleString("en-US", {
    timeZone: ZONE,
    hourCycle: "h23",
  });
  assert.match(
    local,
    /, 00:00:00$/,
    `today starts at New York's midnight: ${local}`,
  );
  // Chosen days: the day before yesterday to today, both included.
  const day = (ago) =>
    new Date(Date.now() - ago * 86_400_000).toLocaleDateString("en-CA", {
      timeZone: ZONE,
    });
  const today = day(0);
  await page.getByLabel("From").fill(day(2));
  await page.getByLabel("To").fill(today);
  await page.getByRole("button", { name: "Show these days" }).click();
  await page.waitForURL(/from=/);
  assert.match(await range.innerText(), /^Chosen days: /);
  assert.equal(
    numberOf(await page.locator('[data-figure="requests"] dd').innerText()),
    JSON.parse(
      await tollgate(
        "usage",
        "--json",
        "--since",
        await range.getAttribute("data-since"),
        "--until",
        await range.getAttribute("data-until"),
      ),
    ).totals.requests,
  );
  await context.close();
});

test("the keys page shows restrictions, finds keys and hides revoked ones", async () => {
  const context = await watchedContext(DESKTOP);
  const page = await signIn(context, adminKey);
  const made = JSON.parse(
    await tollgate(
      "key",
      "create",
      "--account",
      "admin",
      "--name",
      "gone soon",
      "--models",
      "echo",
      "--json",
    ),
  );
  await tollgate("key", "revoke", made.id);
  await page.goto(`${url}/admin/keys`);
  assert.equal(
    await page.locator(`tr[data-key="${made.id}"]`).count(),
    0,
    "revoked: hidden",
  );
  await page.getByLabel("Show revoked keys").check();
  await page.waitForURL(/revoked=show/);
  const row = page.locator(`tr[data-key="${made.id}"]`);
  assert.match(
    await row.locator("[data-restrictions]").innerText(),
    /models: echo/,
  );
  assert.equal(await row.locator(".badge").innerText(), "revoked");
  // A model the config does not know is named as it is typed.
  if (!(await page.getByRole("form", { name: "Create a key" }).isVisible())) {
    await page.getByText("Create a key").click();
  }
  await page.getByRole("form", { name: "Create a key" }).getByLabel("Models")
    .fill("echo, ecko");
  assert.equal(
    await page.locator("[data-models-hint]").innerText(),
    "Not a model of the config: ecko",
  );
  await page.getByLabel("Find", { exact: true }).fill("gone soon");
  await page.getByRole("button", { name: "Find" }).click();
  await page.waitForURL(/q=gone/);
  assert.deepEqual(
    await page.locator("tr[data-key]").evaluateAll((rows) => rows.map((r) => r.dataset.key)),
    [made.id],
  );
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

test("every page fits a phone's width (390 px): no overflow, every table cell inside it", async () => {
  const context = await watchedContext(PHONE);
  const page = await signIn(context, adminKey);
  const keyId = JSON.parse(await tollgate("key", "list", "--json"))[0].id;
  const paths = [
    "",
    "?range=today",
    "/keys",
    "/accounts",
    "/channels",
    "/requests",
    `/keys/${keyId}`,
    "/accounts/admin",
    "/models/echo",
    "/channels/down",
  ];
  for (const path of paths) {
    await page.goto(`${url}/admin${path}`);
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth -
      document.documentElement.clientWidth
    );
    assert.equal(overflow, 0, `/admin${path} overflows by ${overflow} px`);
    // Every column of every table is kept (a card a row), each cell within the screen.
    const outside = await page.locator("table td").evaluateAll(
      (cells, width) =>
        cells.filter((cell) => {
          const box = cell.getBoundingClientRect();
          return cell.offsetParent !== null &&
            (box.left < 0 || box.right > width || box.width === 0);
        }).map((cell) => `${cell.dataset.label}: ${cell.textContent}`),
      PHONE.width,
    );
    assert.deepEqual(outside, [], `/admin${path}`);
  }
  // The key columns are there, labelled: the requests' status and spend, the channels' errors.
  await page.goto(`${url}/admin/requests`);
  const first = page.locator("tr[data-request]").first();
  for (const label of ["Status", "Spend", "Channel"]) {
    assert.ok(
      await first.locator(`td[data-label="${label}"]`).isVisible(),
      label,
    );
  }
  await page.goto(`${url}/admin/channels`);
  assert.ok(
    await page.locator(
      'tr[data-channel="down"] td[data-label="Errors 1h / 24h"]',
    ).isVisible(),
  );
  await context.close();
});

test("a request's page shows its outcome, its reason in full and each attempt, at 1280 and 390 px", async () => {
  const failed = JSON.parse(
    await tollgate(
      "requests",
      "--status",
      "failed",
      "--model",
      "down",
      "--json",
    ),
  )[0];
  assert.ok(failed, "the request to the channel that is down failed");
  // A refusal: a key that does not exist, found by its id at once.
  const refusal = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: "Bearer sk-not-a-key-of-ours-0123456789",
      "content-type": "application/json",
    },
    body: JSON.stringify({ model: "echo", messages: [] }),
  });
  await refusal.text();
  assert.equal(refusal.status, 401);
  const refusedId = refusal.headers.get("x-request-id");
  for (const viewport of [DESKTOP, PHONE]) {
    const context = await watchedContext(viewport);
    const page = await signIn(context, adminKey);
    await page.goto(`${url}/admin/requests`);
    await page.locator(`a[href="/admin/requests/${failed.request_id}"]`).first()
      .click();
    await page.waitForURL(`${url}/admin/requests/${failed.request_id}`);
    assert.equal(
      await page.locator("[data-status]").innerText(),
      "failed",
    );
    const reason = page.locator("[data-reason]");
    assert.ok(
      await reason.isVisible(),
      "the reason is on the page, not a tooltip",
    );
    assert.ok((await reason.innerText()).includes(failed.reason));
    const attempt = page.locator('tr[data-attempt="1"]');
    assert.ok(
      await attempt.locator('td[data-label="Channel"]').isVisible(),
    );
    const attemptReason = attempt.locator("[data-attempt-reason]");
    assert.ok(await attemptReason.isVisible());
    assert.match(
      await attemptReason.innerText(),
      /^The upstream at 127\.0\.0\.1:\d+ could not be reached/,
    );
    // Whole, inside the screen: no overflow, nothing cut.
    for (const element of [reason, attemptReason]) {
      const box = await element.boundingBox();
      assert.ok(
        box.x >= 0 && box.x + box.width <= viewport.width,
        `${viewport.width} px`,
      );
      assert.ok(
        await element.evaluate((node) => node.scrollWidth <= node.clientWidth + 1),
        "the reason is not cut",
      );
    }
    const overflow = await page.evaluate(() =>
      document.documentElement.scrollWidth -
      document.documentElement.clientWidth
    );
    assert.equal(overflow, 0);
    // The refusal's page: refused, its code and reason, the key by its prefix only.
    await page.goto(`${url}/admin/requests/${refusedId}`);
    assert.equal(await page.locator("[data-status]").innerText(), "refused");
    assert.match(
      await page.locator("[data-reason]").innerText(),
      /^401 authentication_error: Invalid API key/,
    );
    assert.equal(await page.locator("[data-key]").innerText(), "sk-not-…");
    await context.close();
  }
});

test("no page logged an error and no request left 127.0.0.1", () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(outsideRequests, []);
});
